import { PlaybooksError, retryAfterMs } from './errors.js';
import type { EtagStore } from './store.js';

export interface RetryOptions {
  /** Retries after the first attempt (default 3). */
  maxRetries?: number;
  /** No retry starts once the call would run longer than this, waits included (default 30 000 ms). */
  maxElapsedMs?: number;
  /** First backoff step; each retry doubles it, and a random share of it is waited (default 250 ms). */
  baseDelayMs?: number;
  /** Cap of one backoff step when the service names no Retry-After (default 8 000 ms). */
  maxDelayMs?: number;
}

/** Options every call takes as its last argument. */
export interface CallOptions {
  /** Aborts the call, retries and waits included; the call then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Limit of each attempt, in milliseconds (default: the client's). */
  timeoutMs?: number;
  /** This call's retry policy, or false for none (default: the client's). */
  retry?: RetryOptions | false;
}

/** What `onResponse` is told about each attempt: never a header, so never the key. */
export interface ResponseEvent {
  method: string;
  /** Path and query string. */
  path: string;
  /** The HTTP status; a 304 answered from the store has `fromStore` set. */
  status: number;
  /** 0 for the first attempt. */
  attempt: number;
  /** The answer is the held one, revalidated by a 304 that carried no body. */
  fromStore: boolean;
  ms: number;
}

/** How a call may be treated: per operation from the OpenAPI document (generated/operations.gen.ts), or per route of `raw`. */
export interface CallPolicy {
  /** Repeating it has the same effect as sending it once: a 503 or a network failure may be retried. */
  idempotent: boolean;
  /**
   * Answered with an ETag (bundles, manifests, lists, single items, and a POST that only reads, by its body): kept
   * in the store and revalidated with If-None-Match.
   */
  conditional?: boolean;
  /** Counted against the workspace's monthly retrievals, a 304 too (bundle, manifest); nothing the transport does differs. */
  metered?: boolean;
  /**
   * False for a POST that only reads (a query sent as a body): it is retried as it is, without the Idempotency-Key
   * that would have the service keep its answer for a retry.
   */
  idempotencyKey?: boolean;
  /** The body is left for the caller to read as it arrives: the attempt's timeout ends once the headers are in. */
  stream?: boolean;
}

export interface TransportOptions {
  fetch?: typeof fetch;
  timeoutMs: number;
  retry: RetryOptions | false;
  store: EtagStore;
  onResponse?: (event: ResponseEvent) => void;
}

const retryDefaults: Required<RetryOptions> = { maxRetries: 3, maxElapsedMs: 30_000, baseDelayMs: 250, maxDelayMs: 8_000 };

/** The store key of a URL: the same query in any order is the same answer. */
export function storeKey(url: URL): string {
  const query = new URLSearchParams([...url.searchParams].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return `${url.origin}${url.pathname}?${query}`;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const done = () => {
      signal?.removeEventListener('abort', abort);
      resolve();
    };
    const abort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', abort, { once: true });
  });
}

/** A signal that follows `timeout` until `answered()`: a streamed answer's body is not bound by the attempt's limit. */
function untilAnswered(timeout: AbortSignal): { signal: AbortSignal; answered: () => void } {
  const controller = new AbortController();
  const abort = () => controller.abort(timeout.reason);
  timeout.addEventListener('abort', abort, { once: true });
  return { signal: controller.signal, answered: () => timeout.removeEventListener('abort', abort) };
}

/**
 * The fetch the generated calls use: per attempt a timeout; retries with jittered exponential backoff that honour
 * Retry-After, bounded in count and time; conditional retrieval through the store. A 429 is answered by the
 * service's request gate before the request is acted on, so it is retried whatever the method; a 503 or a network
 * failure when the operation is idempotent, which a POST is made by its Idempotency-Key.
 */
export function transportFetch(options: TransportOptions, policy: CallPolicy, call: CallOptions = {}): typeof fetch {
  const retry = call.retry === undefined ? options.retry : call.retry;
  const limits = retry === false ? { ...retryDefaults, maxRetries: 0 } : { ...retryDefaults, ...retry };
  const timeoutMs = call.timeoutMs ?? options.timeoutMs;
  const userSignal = call.signal;

  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    const original = input instanceof Request && init === undefined ? input : new Request(input, init);
    // A POST carries one Idempotency-Key for all its attempts, so that retrying it is safe: the service replays the
    // first answer instead of acting twice. A POST sent once only (retries off) needs none.
    const keyed = original.method === 'POST' && limits.maxRetries > 0 && policy.idempotencyKey !== false;
    if (keyed && !original.headers.has('idempotency-key')) original.headers.set('idempotency-key', globalThis.crypto.randomUUID());
    const idempotent = policy.idempotent || original.headers.has('idempotency-key');
    const send = options.fetch ?? globalThis.fetch;
    const url = new URL(original.url);
    const path = `${url.pathname}${url.search}`;
    // A POST that only reads (a query sent as a body) is answered by its body as a GET by its URL: the body is
    // part of what it is kept under.
    const key = !policy.conditional
      ? undefined
      : original.method === 'GET'
        ? storeKey(url)
        : original.method === 'POST' && policy.idempotencyKey === false
          ? `${storeKey(url)}\n${await original.clone().text()}`
          : undefined;
    const held = key ? await options.store.get(key) : undefined;
    const started = Date.now();

    for (let attempt = 0; ; attempt++) {
      userSignal?.throwIfAborted();
      const timeout = AbortSignal.timeout(timeoutMs);
      const limit = policy.stream ? untilAnswered(timeout) : { signal: timeout, answered: () => undefined };
      const request = new Request(original.clone(), { signal: userSignal ? AbortSignal.any([userSignal, limit.signal]) : limit.signal });
      if (held) request.headers.set('if-none-match', held.etag);
      const attemptStarted = Date.now();
      let response: Response;
      try {
        // Called on globalThis: a browser's own fetch throws when called on anything else.
        response = await send.call(globalThis, request);
      } catch (err) {
        const wait = idempotent && !timeout.aborted && !userSignal?.aborted ? backoff(attempt, undefined) : undefined;
        if (wait !== undefined && canWait(attempt, wait)) {
          await sleep(wait, userSignal);
          continue;
        }
        throw failure(err, timeout);
      }
      const fromStore = response.status === 304 && held !== undefined;
      options.onResponse?.({ method: original.method, path, status: response.status, attempt, fromStore, ms: Date.now() - attemptStarted });

      if (fromStore) {
        const headers = new Headers(response.headers);
        headers.set('content-type', 'application/json');
        headers.set('etag', held.etag);
        // The held body answers as the 200 it was; RateLimit-* and the rest come from the 304.
        return new Response(held.body, { status: 200, headers });
      }
      if ((response.status === 429 || (response.status === 503 && idempotent)) && attempt < limits.maxRetries) {
        const wait = backoff(attempt, retryAfterMs(response.headers.get('retry-after')));
        if (canWait(attempt, wait)) {
          limit.answered();
          await response.body?.cancel();
          await sleep(wait, userSignal);
          continue;
        }
      }
      if (policy.stream) {
        limit.answered();
        return response;
      }
      // Read here, so that the attempt's timeout covers the whole answer and a failure is a PlaybooksError too. As
      // bytes: the answer is handed on exactly as it came, whatever it holds.
      let body: ArrayBuffer;
      try {
        body = await response.arrayBuffer();
      } catch (err) {
        throw failure(err, timeout);
      }
      const etag = response.headers.get('etag');
      if (key && response.status === 200 && etag) await options.store.set(key, { etag, body: new TextDecoder().decode(body) });
      if (key && held && response.status === 404) await options.store.delete(key);
      const headers = new Headers(response.headers);
      // The body is decoded now: its transfer length and encoding no longer apply.
      headers.delete('content-length');
      headers.delete('content-encoding');
      const empty = response.status === 204 || response.status === 205 || response.status === 304;
      return new Response(empty ? null : body, { status: response.status, statusText: response.statusText, headers });
    }

    /** The caller's own abort rethrows its reason; a timeout or a network failure is a PlaybooksError. */
    function failure(err: unknown, timeout: AbortSignal): unknown {
      if (userSignal?.aborted) return userSignal.reason;
      if (timeout.aborted) return new PlaybooksError({ status: 0, code: 'timeout', detail: `No answer within ${timeoutMs} ms` }, { cause: err });
      return new PlaybooksError({ status: 0, code: 'network_error', detail: err instanceof Error ? err.message : String(err) }, { cause: err });
    }

    /** Full jitter without Retry-After; with it, never sooner than asked, spread by up to one base step. */
    function backoff(attempt: number, asked: number | undefined): number {
      if (asked !== undefined) return asked + Math.random() * limits.baseDelayMs;
      return Math.random() * Math.min(limits.maxDelayMs, limits.baseDelayMs * 2 ** attempt);
    }

    function canWait(attempt: number, wait: number): boolean {
      return attempt < limits.maxRetries && Date.now() - started + wait <= limits.maxElapsedMs;
    }
  }) as typeof fetch;
}
