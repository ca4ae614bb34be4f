import type { GetPromptResult, ListPromptsResult, Prompt } from '@modelcontextprotocol/sdk/types.js';
import { AppError } from '../errors.js';
import { textWithin } from '../tokens/token-count.js';
import { longestFit } from '../tokens/token-fit.js';
import type { Bundle } from '../retrieval/schemas.js';
import { approvedVersion, instructionsOf } from './resources.js';
import { type ToolCall, type ToolOperation, type ToolServices, promptBundle } from './tools.js';

/**
 * Prompts: each approved playbook by its slug, and run_playbook naming one. A prompt is the playbook's
 * instructions and its ranked context as markdown, within a token budget (the maxTokens argument, or the
 * server's MCP budget); getting one is a retrieval, counted and cached like get_bundle.
 */

const maxTokensArgument = { name: 'maxTokens', description: 'Token budget of the whole prompt (default: the server’s MCP budget)', required: false };
export const runPlaybook = 'run_playbook';

/** Every approved playbook by its slug (the first 200 by title), then run_playbook. */
export async function listPrompts(s: ToolServices, { caller }: ToolCall): Promise<ListPromptsResult> {
  const { playbooks } = await s.playbooks.list(caller, { status: 'approved', sort: 'title', order: 'asc', page: 1, limit: 200 });
  const run: Prompt = {
    name: runPlaybook,
    title: 'Run a playbook',
    description: 'A playbook’s instructions and its ranked context, ready to follow',
    arguments: [{ name: 'playbook', description: 'The playbook’s slug or id', required: true }, maxTokensArgument],
  };
  return {
    prompts: [
      ...playbooks.filter((p) => p.slug !== runPlaybook).map((p) => ({ name: p.slug, title: p.title, description: p.summary ?? `Run the playbook ${p.title}`, arguments: [maxTokensArgument] })),
      run,
    ],
  };
}

function budgetArgument(value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 100 || n > 1_000_000) throw new AppError('invalid_request', 'maxTokens must be a whole number from 100 to 1000000');
  return n;
}

export async function getPrompt(s: ToolServices, call: ToolCall, bundleOperation: ToolOperation, name: string, args: Record<string, string> = {}): Promise<GetPromptResult> {
  const reference = name === runPlaybook ? args.playbook : name;
  if (!reference) throw new AppError('invalid_request', 'run_playbook needs the argument playbook: a playbook’s slug or id');
  const maxTokens = budgetArgument(args.maxTokens, call.defaultMaxTokens);
  const playbook = await s.playbooks.get(call.caller, await s.playbooks.idOf(call.caller, reference));
  const version = approvedVersion(playbook);
  const head = textWithin(`# ${playbook.title}\n\n${instructionsOf(version.content)}`, Math.floor(maxTokens / 2));
  // The bundle's JSON is only the source of the markdown (which is fitted to the budget below): it may be larger,
  // so that a small budget still gets the context its markdown has room for.
  const bundle = await promptBundle(s, call, bundleOperation, playbook.id, Math.max(2 * maxTokens, 4_000));
  const textOf = (n: number) => `${head}\n\n${contextMarkdown(bundle, n)}`;
  // The markdown of the bundle's nodes is shorter than their JSON, yet checked: the budget is the prompt's.
  const fitted = longestFit(bundle.nodes.length, maxTokens, textOf, (i) => nodeMarkdown(bundle.nodes[i], i));
  const text = fitted?.answer ?? textWithin(head, maxTokens - 20);
  return { description: playbook.summary ?? playbook.title, messages: [{ role: 'user', content: { type: 'text', text } }] };
}

function nodeMarkdown(node: Bundle['nodes'][number], i: number): string {
  const why = node.reason.kind === 'read-first' ? 'read first' : `${node.reason.kind}, ${node.reason.depth} hop${node.reason.depth === 1 ? '' : 's'} from the playbook`;
  const text = node.content ?? node.agentSummary ?? node.description ?? '';
  return `### ${i + 1}. ${node.title}\n\n_${node.nodeType} \`${node.slug}\` (${why})_\n\n${text}`;
}

/** The bundle's first n nodes as markdown, and what was left out in a line. */
function contextMarkdown(bundle: Bundle, n: number): string {
  const nodes = bundle.nodes.slice(0, n).map(nodeMarkdown);
  const left = bundle.omittedCount + (bundle.nodes.length - n);
  const more = left > 0 ? [`_${left} more context node${left === 1 ? '' : 's'} left out: get_manifest lists every ranked node, get_node reads one._`] : [];
  return ['## Context, most important first', ...nodes, ...more].join('\n\n');
}
