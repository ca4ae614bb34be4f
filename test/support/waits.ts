import { request } from './api.js';

const pollEveryMs = 50;

/**
 * Polls `check` until it gives a value (anything but undefined), and returns that value: for what the service
 * does after the request the test made (a webhook delivered, a subscription disabled).
 */
export function until<T>(what: string, check: () => Promise<T | undefined> | T | undefined, timeoutMs?: number): Promise<T>;
/**
 * Polls `probe` until `ok` holds of its value, and returns that value: for what shows after a request whose
 * answer the test cannot await (a list keeps its previous rows while the next page loads, a key's grace runs out).
 */
export function until<T>(what: string, probe: () => Promise<T> | T, ok: (value: T) => boolean, timeoutMs?: number): Promise<T>;
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  okOrTimeout?: ((value: T) => boolean) | number,
  timeoutMs = 15_000,
): Promise<T> {
  const ok = typeof okOrTimeout === 'function' ? okOrTimeout : (value: T | undefined) => value !== undefined;
  const limitMs = typeof okOrTimeout === 'number' ? okOrTimeout : timeoutMs;
  const deadline = Date.now() + limitMs;
  for (;;) {
    const value = await probe();
    if (ok(value as T)) return value as T;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: still ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, pollEveryMs));
  }
}

/** Polls an API process's /readyz until it answers 200 (its stores answer, and every owed signal was delivered). */
export async function untilReady(baseUrl: string, timeoutMs = 30_000): Promise<void> {
  await until(`${baseUrl} to get ready`, async () => (await request('GET', '/readyz', { baseUrl })).status, (status) => status === 200, timeoutMs);
}
