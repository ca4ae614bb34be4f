import type { GetEmbeddingStatusResponse, QueryContextResponse, QueryReason } from '@sdk';

/** What the Find page says about a query's answer and the embeddings, in words a person reads. */

export type EmbeddingStatus = GetEmbeddingStatusResponse;
export type SearchMode = QueryContextResponse['query']['mode'];

const count = (n: number) => n.toLocaleString('en');

/**
 * Why a node is in the answer: "matched by meaning · section “Expense claims”", "linked from Travel policy by requires",
 * "ranked last: superseded". A linked node names the node it came from by its title when that one is on the page.
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

/** The embeddings badge: how far meaning search is in this workspace. */
export function embeddingText(status: EmbeddingStatus): string {
  switch (status.state) {
    case 'embedding':
      return `Embedding ${count(status.embedded)} of ${count(status.total)} nodes`;
    case 'ready':
      return 'Meaning search ready';
    case 'off':
      return 'Embeddings off';
    case 'client':
      return 'Meaning search with vectors from clients';
    case 'provider-unavailable':
      return 'Embedding paused: provider unavailable';
  }
}

/** How the service searched, for the answer's summary: said plainly when meaning was asked for and words alone ran. */
export function searchedBy(asked: SearchMode, answer: QueryContextResponse['query']): string {
  const model = answer.model ? ` (${answer.model})` : '';
  if (answer.mode === 'hybrid') return `words and meaning${model}`;
  if (answer.mode === 'meaning') return `meaning${model}`;
  // A degraded answer says why in a notice of its own.
  return asked === 'words' || answer.degraded ? 'words' : 'words only (meaning search is not available here)';
}
