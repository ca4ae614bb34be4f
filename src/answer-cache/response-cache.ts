import { hash } from 'node:crypto';
import { LRUCache } from 'lru-cache';

/** A ready-to-send answer and its strong ETag. */
export interface CachedAnswer {
  body: Buffer;
  etag: string;
}

/**
 * Every cacheable answer (bundles, manifests, playbook and node reads), held as the bytes to send under one key
 * scheme: the workspace's graph generation, the route, the path, the validated query and, when the answer
 * depends on who asks, the caller. The ETag is derived from the same key, so a conditional request is answered
 * 304 without the graph or serialisation. An entry can never be served after a change: the generation in its
 * key is simply never read again, and the entry ages out (LRU, bounded in bytes).
 */
export class ResponseCache {
  private readonly lru?: LRUCache<string, CachedAnswer>;
  hits = 0;
  misses = 0;

  constructor(options: { enabled: boolean; maxBytes: number }) {
    if (options.enabled && options.maxBytes > 0) {
      this.lru = new LRUCache<string, CachedAnswer>({
        maxSize: options.maxBytes,
        sizeCalculation: (value, key) => value.body.length + key.length + 64,
      });
    }
  }

  /** The strong ETag of the answer under a key: the same for every process, and for the 304 of an evicted entry. */
  static etagOf(key: string): string {
    return `"${hash('sha256', key, 'base64url').slice(0, 32)}"`;
  }

  /**
   * The entry of an answer and its ETag (see src/answer-cache/cache-step.ts, the step that asks). `audience` is the
   * caller when the answer depends on who asks. A hit carries its ETag; a miss derives it from the key (hashed
   * only then).
   */
  lookup(parts: { generation: string; operationId: string; path: string; query: Record<string, unknown>; audience?: { kind: string; id: string } }): { key: string; hit?: CachedAnswer; etag: string } {
    const { audience } = parts;
    const key = keyFrom(parts.generation, parts.operationId, parts.path, parts.query, audience ? `${audience.kind}:${audience.id}` : undefined);
    const hit = this.get(key);
    return { key, hit, etag: hit?.etag ?? ResponseCache.etagOf(key) };
  }

  /** Keeps an answer's bytes under its key (see lookup) and returns them. */
  keep(key: string, etag: string, body: unknown): Buffer {
    const bytes = Buffer.from(JSON.stringify(body));
    this.set(key, { body: bytes, etag });
    return bytes;
  }

  get(key: string): CachedAnswer | undefined {
    const found = this.lru?.get(key);
    if (found) this.hits += 1;
    else this.misses += 1;
    return found;
  }

  set(key: string, answer: CachedAnswer): void {
    this.lru?.set(key, answer);
  }

  get size(): number {
    return this.lru?.calculatedSize ?? 0;
  }
}

/**
 * The cache key of an answer: the validated query (defaults filled in) in name order, so that one request spelled
 * two ways is one answer with one ETag. Every cacheable request builds one, hit or not.
 */
function keyFrom(generation: string, operationId: string, path: string, query: Record<string, unknown>, audience: string | undefined): string {
  const names = Object.keys(query);
  if (names.length > 1) names.sort();
  let text = '';
  for (const name of names) text += `${name}=${JSON.stringify(query[name])}&`;
  return `${generation}|${operationId}|${path}|${text}|${audience ?? '*'}`;
}
