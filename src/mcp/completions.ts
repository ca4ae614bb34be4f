import type { CompleteRequest, CompleteResult } from '@modelcontextprotocol/sdk/types.js';
import { runPlaybook } from './prompts.js';
import type { ToolCall, ToolServices } from './tools.js';

/**
 * Completions of prompt arguments and resource-template variables: the slugs of the workspace's approved
 * playbooks (a playbook prompt's argument, playbook://{slug}) and of its live context nodes (node://{slug}) that
 * start with what was typed, in slug order. A completion is a prefix match, answered by an index seek on the
 * workspace's slugs (not a text search, which finds words, not the start of a slug).
 */

/** The most values an answer holds (the protocol's own cap); hasMore says when there are others. */
const most = 100;

/** What was typed, as slugs are written: lower-cased, in NFC. */
const asSlugPrefix = (typed: string) => typed.trim().toLowerCase().normalize('NFC');

export async function complete(s: ToolServices, { caller }: ToolCall, params: CompleteRequest['params']): Promise<CompleteResult> {
  const { ref, argument } = params;
  const kind =
    (ref.type === 'ref/prompt' && ref.name === runPlaybook && argument.name === 'playbook') || (ref.type === 'ref/resource' && ref.uri === 'playbook://{slug}')
      ? 'playbook'
      : ref.type === 'ref/resource' && ref.uri === 'node://{slug}'
        ? 'node'
        : undefined;
  if (!kind) return { completion: { values: [], hasMore: false } };
  const { slugs, more } = await s.retrieval.slugsStartingWith(caller, kind, asSlugPrefix(argument.value), most);
  return { completion: { values: slugs, hasMore: more } };
}
