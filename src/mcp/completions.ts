import type { CompleteRequest, CompleteResult } from '@modelcontextprotocol/sdk/types.js';
import { runPlaybook } from './prompts.js';
import type { ToolCall, ToolServices } from './tools.js';

/**
 * Completions of prompt arguments and resource-template variables: the slugs of the workspace's approved
 * playbooks (a playbook prompt's argument, playbook://{slug}) and of its live context nodes (node://{slug}),
 * those that start with what was typed first.
 */

const most = 100;

export async function complete(s: ToolServices, { caller }: ToolCall, params: CompleteRequest['params']): Promise<CompleteResult> {
  const typed = params.argument.value.trim();
  const { ref, argument } = params;
  let values: string[] = [];
  if ((ref.type === 'ref/prompt' && ref.name === runPlaybook && argument.name === 'playbook') || (ref.type === 'ref/resource' && ref.uri === 'playbook://{slug}')) {
    const { playbooks } = await s.playbooks.list(caller, { status: 'approved', q: typed || undefined, sort: 'title', order: 'asc', page: 1, limit: most });
    values = playbooks.map((p) => p.slug);
  } else if (ref.type === 'ref/resource' && ref.uri === 'node://{slug}') {
    const query = typed ? { q: typed } : { sort: 'title' as const, order: 'asc' as const };
    const { nodes } = await s.nodes.list(caller, { status: 'live', ...query, page: 1, limit: most });
    values = nodes.map((n) => n.slug);
  }
  const lower = typed.toLowerCase();
  const first = values.filter((v) => v.startsWith(lower));
  const ordered = [...first, ...values.filter((v) => !v.startsWith(lower))];
  return { completion: { values: ordered.slice(0, most), hasMore: false } };
}
