/** A held answer: the body of a 200 exactly as it came, and the ETag that validates it. */
export interface StoredAnswer {
  etag: string;
  body: string;
}

/**
 * Where the client keeps bundles and manifests between calls, keyed by URL. Any store will do (a Map, Redis,
 * localStorage, a file): methods may return promises. What is kept is what any caller of that URL could be
 * sent, since the service's ETag changes with everything the body depends on, the caller's view included.
 */
export interface EtagStore {
  get(key: string): StoredAnswer | undefined | Promise<StoredAnswer | undefined>;
  set(key: string, answer: StoredAnswer): void | Promise<void>;
  delete(key: string): void | Promise<void>;
}

export interface MemoryEtagStoreOptions {
  /** At most this many answers (default 200). */
  maxEntries?: number;
  /** At most this many characters of bodies in all (default 16 Mi); an answer larger than that is not kept. */
  maxChars?: number;
}

/** The default store: in memory, bounded in entries and in size, least recently used out first. */
export class MemoryEtagStore implements EtagStore {
  readonly #entries = new Map<string, StoredAnswer>();
  readonly #maxEntries: number;
  readonly #maxChars: number;
  #chars = 0;

  constructor(options: MemoryEtagStoreOptions = {}) {
    this.#maxEntries = options.maxEntries ?? 200;
    this.#maxChars = options.maxChars ?? 16 * 1024 * 1024;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: string): StoredAnswer | undefined {
    const answer = this.#entries.get(key);
    if (answer) {
      // Map keeps insertion order: re-inserting marks it the most recently used.
      this.#entries.delete(key);
      this.#entries.set(key, answer);
    }
    return answer;
  }

  set(key: string, answer: StoredAnswer): void {
    this.delete(key);
    if (answer.body.length > this.#maxChars) return;
    this.#entries.set(key, answer);
    this.#chars += answer.body.length;
    for (const [oldest, held] of this.#entries) {
      if (this.#entries.size <= this.#maxEntries && this.#chars <= this.#maxChars) break;
      this.#entries.delete(oldest);
      this.#chars -= held.body.length;
    }
  }

  delete(key: string): void {
    const held = this.#entries.get(key);
    if (!held) return;
    this.#entries.delete(key);
    this.#chars -= held.body.length;
  }
}
