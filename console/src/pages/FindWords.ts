import type { GetEmbeddingStatusResponse, QueryContextResponse } from '@sdk';

/** What the Find page says about a query's answer and the embeddings, in words a person reads. */

export type EmbeddingStatus = GetEmbeddingStatusResponse;
export type SearchMode = QueryContextResponse['query']['mode'];

const count = (n: number) => n.toLocaleString('en');

/** Why a node is in the answer: the SDK's wording, shared with the CLI's `find`. */
export { reasonText } from '@sdk';

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
