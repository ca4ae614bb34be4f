import type { GetPromptResult, ListPromptsResult, ListResourcesResult, ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { AppError, notFound } from '../errors.js';
import { slugPattern } from '../http/slug.js';
import type { PlaybookDetail } from '../playbooks/schemas.js';
import { type ToolCall, type ToolServices, bundleFor } from './tools.js';

/**
 * Resources (approved playbooks as playbook://{slug}, live context nodes as node://{slug}, markdown) and prompts
 * (each approved playbook: its instructions and its bundle). Everything is read through the REST services.
 */

export const resourceTemplates = [
  { uriTemplate: 'playbook://{slug}', name: 'playbook', title: 'Approved playbook', description: 'A playbook’s approved version, as markdown', mimeType: 'text/markdown' },
  { uriTemplate: 'node://{slug}', name: 'node', title: 'Context node', description: 'A live context node’s content, as markdown', mimeType: 'text/markdown' },
];

const pageSize = 50;

/** The cursor of resources/list: which list and which page of it (opaque to clients). */
interface Cursor {
  list: 'playbooks' | 'nodes';
  page: number;
}
const encodeCursor = (c: Cursor) => Buffer.from(JSON.stringify(c)).toString('base64url');
function decodeCursor(cursor: string | undefined): Cursor {
  if (!cursor) return { list: 'playbooks', page: 1 };
  try {
    const c = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if ((c.list === 'playbooks' || c.list === 'nodes') && Number.isInteger(c.page) && c.page >= 1 && c.page <= 1_000_000) return c;
  } catch {
    // fall through
  }
  throw new AppError('invalid_request', 'Unknown cursor');
}

/** Approved playbooks first, then live nodes, one page of either per call. */
export async function listResources(s: ToolServices, { caller }: ToolCall, cursor: string | undefined): Promise<ListResourcesResult> {
  const at = decodeCursor(cursor);
  if (at.list === 'playbooks') {
    const { playbooks, pagination } = await s.playbooks.list(caller, { status: 'approved', sort: 'title', order: 'asc', page: at.page, limit: pageSize });
    const more = pagination.page * pagination.limit < pagination.total;
    return {
      resources: playbooks.map((p) => ({ uri: `playbook://${p.slug}`, name: p.slug, title: p.title, description: p.summary ?? undefined, mimeType: 'text/markdown' })),
      nextCursor: encodeCursor(more ? { list: 'playbooks', page: at.page + 1 } : { list: 'nodes', page: 1 }),
    };
  }
  const { nodes, pagination } = await s.nodes.list(caller, { status: 'live', sort: 'title', order: 'asc', page: at.page, limit: pageSize });
  const more = pagination.page * pagination.limit < pagination.total;
  return {
    resources: nodes.map((n) => ({ uri: `node://${n.slug}`, name: n.slug, title: n.title, description: n.description || undefined, mimeType: 'text/markdown' })),
    ...(more ? { nextCursor: encodeCursor({ list: 'nodes', page: at.page + 1 }) } : {}),
  };
}

function approvedVersion(playbook: PlaybookDetail) {
  const version = playbook.versions.find((v) => v.status === 'approved');
  if (!version) throw notFound('Approved playbook');
  return version;
}

/** The instructions of a version's content: its `instructions` entry when it is text, else the content as JSON. */
function instructionsOf(content: Record<string, unknown>): string {
  return typeof content.instructions === 'string' ? content.instructions : `\`\`\`json\n${JSON.stringify(content, null, 2)}\n\`\`\``;
}

function decodedSlug(text: string): string | undefined {
  try {
    const slug = decodeURIComponent(text);
    return slugPattern.test(slug) ? slug : undefined;
  } catch {
    return undefined;
  }
}

export async function readResource(s: ToolServices, { caller }: ToolCall, uri: string): Promise<ReadResourceResult> {
  const match = /^(playbook|node):\/\/([^/?#]+)$/.exec(uri);
  // A slug in any script may come as it is or percent-encoded, as clients write URIs.
  const slug = match ? decodedSlug(match[2]) : undefined;
  if (!match || !slug) throw notFound('Resource');
  const kind = match[1];
  if (kind === 'playbook') {
    const playbook = await s.playbooks.get(caller, await s.playbooks.idOf(caller, slug));
    if (playbook.archivedAt) throw notFound('Playbook');
    const version = approvedVersion(playbook);
    const text = [`# ${playbook.title}`, playbook.description ?? playbook.summary ?? '', `Version ${version.versionNumber}`, instructionsOf(version.content)]
      .filter(Boolean)
      .join('\n\n');
    return { contents: [{ uri, mimeType: 'text/markdown', text }] };
  }
  const node = await s.nodes.get(caller, await s.nodes.idOf(caller, slug));
  if (node.status !== 'live') throw notFound('Context node');
  return { contents: [{ uri, mimeType: 'text/markdown', text: `# ${node.title}\n\n${node.content}` }] };
}

/** Every approved playbook is a prompt named by its slug (first 200 by title). */
export async function listPrompts(s: ToolServices, { caller }: ToolCall): Promise<ListPromptsResult> {
  const { playbooks } = await s.playbooks.list(caller, { status: 'approved', sort: 'title', order: 'asc', page: 1, limit: 200 });
  return { prompts: playbooks.map((p) => ({ name: p.slug, title: p.title, description: p.summary ?? `Run the playbook ${p.title}` })) };
}

/** The playbook's instructions and its bundle (a retrieval: counted and cached like get_bundle, within the MCP budget). */
export async function getPrompt(s: ToolServices, call: ToolCall, name: string): Promise<GetPromptResult> {
  const playbook = await s.playbooks.get(call.caller, await s.playbooks.idOf(call.caller, name));
  const version = approvedVersion(playbook);
  const bundle = await bundleFor(s, call, { playbook: playbook.id });
  return {
    description: playbook.summary ?? playbook.title,
    messages: [
      { role: 'user', content: { type: 'text', text: `# ${playbook.title}\n\n${instructionsOf(version.content)}` } },
      { role: 'user', content: { type: 'text', text: `Context for this playbook (ranked, most important first):\n\n${bundle.text}` } },
    ],
  };
}
