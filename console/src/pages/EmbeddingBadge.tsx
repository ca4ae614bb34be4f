import { useQuery } from '@tanstack/react-query';
import { clientFor } from '../api.ts';
import { embeddingText } from './FindWords.ts';

/** How often the badge asks again while the nodes are being embedded, and while the provider is away. */
const embeddingPollMs = 2_500;
const pausedPollMs = 15_000;

/**
 * The workspace's embeddings in one line (GET …/embeddings), asked again while they change: every few seconds while
 * nodes are being embedded, now and then while the provider is away, never once they are ready or off.
 */
export function EmbeddingBadge({ ws }: { ws: string }) {
  const status = useQuery({
    queryKey: ['embeddings', ws],
    queryFn: () => clientFor(ws).context.embeddings(),
    refetchInterval: (q) => (q.state.data?.state === 'embedding' ? embeddingPollMs : q.state.data?.state === 'provider-unavailable' ? pausedPollMs : false),
  });
  if (!status.data) return null;
  const { state, total, embedded, model, error } = status.data;
  const detail = [model && `model ${model}`, error].filter(Boolean).join(' · ');
  return (
    <p role="status" className={`embedding-badge state-${state}`} data-testid="embedding-badge" data-state={state} title={detail || undefined}>
      {state === 'embedding' && <progress max={Math.max(total, 1)} value={embedded} aria-hidden="true" />}
      {embeddingText(status.data)}
    </p>
  );
}
