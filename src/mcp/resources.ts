import type { ListResourcesResult, ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { AppError, notFound } from '../errors.js';
import { slugPattern } from '../api/slug.js';
import { cutMark, fitsIn } from '../tokens/token-fit.js';
import { textWithin } from '../tokens/token-count.js';
import type { PlaybookDetail } from '../playbooks/schemas.js';
import type { ToolCall, ToolServices } from './tools.js';

/**
 * Resources: approved playbooks as playbook://{slug}, live context nodes as node://{slug}, as markdown within
 * the server's MCP budget. Everything is read through the REST services.
 */

export const resourceTemplates = [
  { uriTemplate: 'playbook://{slug}', name: 'playbook', title: 'Approved playbook', description: 'A playbook’s approved version, as markdown', mimeType: 'text/markdown' },
  { uriTemplate: 'node://{slug}', name: 'node', title: 'Context node', description: 'A live context node’s content, as markdown', mimeType: 'text/markdown' },
];

/** Each page of resources/list holds up to this many approved playbooks and as many live nodes. */
const pageSize = 50;

/** The cursor of resources/list: the next page number of both lists (opaque to clients). */
const encodeCursor = (page: number) => Buffer.from(JSON.stringify({ page })).toString('base64url');
function decodeCursor(cursor: string | undefined): number {
  if (!cursor) return 1;
  try {
    const { page } = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Number.isInteger(page) && page >= 2 && page <= 1_000_000) return page;
  } catch {
    // fall through
  }
  throw new AppError('invalid_request', 'Unknown cursor');
}

/**
 * One page of both lists: the page's approved playbooks (by title), then as many of the live nodes (by title), so
 * that a client that reads only the first page (most do) sees nodes too. nextCursor is there while either list has
 * more; a list that has run out leaves later pages to the other.
 */
export async function listResources(s: ToolServices, { caller }: ToolCall, cursor: string | undefined): Promise<ListResourcesResult> {
  const page = decodeCursor(cursor);
  const [{ playbooks, pagination: playbookPages }, { nodes, pagination: nodePages }] = await Promise.all([
    s.playbooks.list(caller, { status: 'approved', sort: 'title', order: 'asc', page, limit: pageSize }),
    s.nodes.list(caller, { status: 'live', sort: 'title', order: 'asc', page, limit: pageSize }),
  ]);
  const more = page * pageSize < Math.max(playbookPages.total, nodePages.total);
  return {
    resources: [
      ...playbooks.map((p) => ({ uri: `playbook://${p.slug}`, name: p.slug, title: p.title, description: p.summary ?? undefined, mimeType: 'text/markdown' })),
      ...nodes.map((n) => ({ uri: `node://${n.slug}`, name: n.slug, title: n.title, description: n.description || undefined, mimeType: 'text/markdown' })),
    ],
    ...(more ? { nextCursor: encodeCursor(page + 1) } : {}),
  };
}

export function approvedVersion(playbook: PlaybookDetail) {
  const version = playbook.versions.find((v) => v.status === 'approved');
  if (!version) throw notFound('Approved playbook');
  return version;
}

/** The instructions of a version's content: its `instructions` entry when it is text, else the content as JSON. */
export function instructionsOf(content: Record<string, unknown>): string {
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

/** A resource's text within the budget: cut where a token ends, and saying so. */
function within(text: string, maxTokens: number, rest: string): string {
  const room = maxTokens - 40; // what the result holds around the text: its uri and type
  return fitsIn(text, room) ? text : textWithin(text, room - 40) + `${cutMark} ${rest}`;
}

export async function readResource(s: ToolServices, { caller, defaultMaxTokens }: ToolCall, uri: string): Promise<ReadResourceResult> {
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
    return { contents: [{ uri, mimeType: 'text/markdown', text: within(text, defaultMaxTokens, 'The get_bundle tool returns it with its context.') }] };
  }
  const node = await s.nodes.get(caller, await s.nodes.idOf(caller, slug));
  if (node.status !== 'live') throw notFound('Context node');
  const text = `# ${node.title}\n\n${node.content}`;
  return { contents: [{ uri, mimeType: 'text/markdown', text: within(text, defaultMaxTokens, 'The get_node tool with a larger maxTokens returns more.') }] };
}
