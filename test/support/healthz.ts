import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** What /healthz took, in milliseconds, for one request sent now. */
export async function healthzMs(baseUrl: string): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${baseUrl}/healthz`);
  await res.arrayBuffer();
  return performance.now() - started;
}

/** The slowest of a few /healthz once the API has warmed up: what "idle" means for the API at `baseUrl`. */
export async function idleHealthzMs(baseUrl: string): Promise<number> {
  for (let i = 0; i < 20; i++) await healthzMs(baseUrl);
  const idle: number[] = [];
  for (let i = 0; i < 30; i++) idle.push(await healthzMs(baseUrl));
  return Math.max(...idle);
}

const pollerFile = fileURLToPath(new URL('./healthz-poller.mjs', import.meta.url));

/**
 * Sends one request and, until it is answered, asks /healthz again and again from a process of its own (so that
 * building and sending the request cannot delay the polls): the answer, the longest /healthz took meanwhile, and
 * the longest a bare HTTP server of a process of its own took beside it (the machine's own stalls).
 */
export async function whilePolling<T>(baseUrl: string, send: () => Promise<T>): Promise<{ reply: T; worstHealthzMs: number; worstControlMs: number; polls: number }> {
  const poller = spawn(process.execPath, [pollerFile, baseUrl], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: poller.stdout! })[Symbol.asyncIterator]();
  try {
    if ((await lines.next()).value !== 'ready') throw new Error('the /healthz poller did not start');
    const reply = await send();
    poller.stdin!.write('stop\n');
    const { worst, worstControl, polls } = JSON.parse((await lines.next()).value as string) as { worst: number; worstControl: number; polls: number };
    return { reply, worstHealthzMs: worst, worstControlMs: worstControl, polls };
  } finally {
    poller.kill();
  }
}

/** How much slower than idle /healthz may be while another request runs. */
export const stallBoundMs = 100;

/**
 * Sends the request while polling /healthz, as `whilePolling`, and gives the bound its worst poll is judged
 * against: the idle figure measured just before, plus `stallBoundMs`, plus the longest the bare control server
 * took meanwhile (what the machine's load, not the API, held every process up by). A measurement over the bound
 * is taken again, up to `attempts` times in all: a request that holds the API's event loop is slow every time.
 */
export async function measuredStall<T>(baseUrl: string, send: () => Promise<T>, attempts = 3): Promise<{ reply: T; worstHealthzMs: number; polls: number; boundMs: number; idleMs: number; worstControlMs: number }> {
  for (let attempt = 1; ; attempt++) {
    const idleMs = await idleHealthzMs(baseUrl);
    const measured = await whilePolling(baseUrl, send);
    const boundMs = idleMs + stallBoundMs + measured.worstControlMs;
    if (measured.worstHealthzMs <= boundMs || attempt >= attempts) return { ...measured, idleMs, boundMs };
  }
}
