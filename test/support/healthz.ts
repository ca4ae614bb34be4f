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
 * building and sending the request cannot delay the polls): the answer and the longest /healthz took meanwhile.
 */
export async function whilePolling<T>(baseUrl: string, send: () => Promise<T>): Promise<{ reply: T; worstHealthzMs: number; polls: number }> {
  const poller = spawn(process.execPath, [pollerFile, baseUrl], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: poller.stdout! })[Symbol.asyncIterator]();
  try {
    if ((await lines.next()).value !== 'ready') throw new Error('the /healthz poller did not start');
    const reply = await send();
    poller.stdin!.write('stop\n');
    const { worst, polls } = JSON.parse((await lines.next()).value as string) as { worst: number; polls: number };
    return { reply, worstHealthzMs: worst, polls };
  } finally {
    poller.kill();
  }
}
