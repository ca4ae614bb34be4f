import { LRUCache } from 'lru-cache';

/** A ready-to-send answer: the serialised body, and its ETag where it has one. */
export interface CachedAnswer {
  body: Buffer;
  etag: string;
}

/**
 * Answers derived from a workspace's graph alone (bundles, manifests, playbook and node reads), held as
 * the bytes to send. Keys carry the workspace's graph generation, so an entry can never be served after
 * a change: it is simply never asked for again and ages out (LRU, bounded in bytes).
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
