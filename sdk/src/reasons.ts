import type { QueryReason } from './generated/types.gen.js';

/**
 * Why a node is in a context query's answer, in words a person reads (the console's Find page and the CLI's
 * `find` say it alike): "matched by meaning · section “Expense claims”", "linked from Travel policy by requires",
 * "ranked last: superseded". `titleOf` names a node of the answer; a node it does not know is named by its id.
 */
export function reasonText(reason: QueryReason, titleOf: (id: string) => string | undefined): string {
  const parts: string[] = [];
  if (reason.kind === 'matched') {
    // Meaning first: it is the search the words alone could not have made.
    const by = [...(reason.by ?? [])].sort((a, b) => (a === b ? 0 : a === 'meaning' ? -1 : 1));
    parts.push(by.length ? `matched by ${by.join(' and ')}` : 'matched');
    if (reason.section) parts.push(`section “${reason.section}”`);
  } else {
    const from = reason.fromId ? (titleOf(reason.fromId) ?? reason.fromId) : 'a match';
    // direction in: this node is the one holding the link, so the sentence turns round.
    const linked = reason.direction === 'in' ? `links to ${from}` : `linked from ${from}`;
    parts.push(reason.linkType ? `${linked} by ${reason.linkType}` : linked);
  }
  if (reason.nearPlaybook) parts.push('near the playbook');
  if (reason.demotedBy?.length) parts.push(`ranked last: ${reason.demotedBy.join(', ')}`);
  return parts.join(' · ');
}
