import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import type { AdminEmbeddingStatusResponse, GetEmbeddingStatusResponse } from '@playbooks/client';
import { AppError } from '../errors.js';
import { serviceClient } from './connection.js';

/**
 * `npm run cli -- embeddings [--workspace WS] [--watch]`: how far the embeddings are, through a running service, once
 * or as a progress line until nothing is left to embed.
 */

export type EmbeddingStatus = GetEmbeddingStatusResponse | AdminEmbeddingStatusResponse;

const count = (n: number) => n.toLocaleString('en-US');
/** The state as the progress line names it: the provider being away pauses the work rather than failing it. */
const stateWord = (status: EmbeddingStatus) => (status.state === 'provider-unavailable' ? 'paused' : status.state);

/** `embedding  [#########-----------]  1,234 / 2,000 nodes  12.3 nodes/s`; the rate left out while unknown. */
export function progressLine(status: EmbeddingStatus, nodesPerSecond: number | null, width = 20): string {
  const done = status.total === 0 ? 1 : Math.min(1, status.embedded / status.total);
  // Rounded down: the bar is full only once every node is embedded.
  const filled = Math.floor(done * width);
  const rate = nodesPerSecond === null ? '' : `  ${nodesPerSecond.toFixed(1)} nodes/s`;
  const why = status.state === 'provider-unavailable' ? `  (provider unavailable${status.error ? `: ${status.error}` : ''})` : '';
  return `${stateWord(status).padEnd(9)}  [${'#'.repeat(filled)}${'-'.repeat(width - filled)}]  ${count(status.embedded)} / ${count(status.total)} nodes${rate}${why}`;
}

/** The status in one line: `ready  2,000 / 2,000 nodes embedded, 0 pending  model nomic-embed-text (768 dimensions)`. */
export function statusLine(status: EmbeddingStatus): string {
  // Off counts nothing (the service does not look): saying 0 of 0 would read as an empty workspace.
  if (status.state === 'off') return 'off  embeddings are off: nodes are found by their words alone';
  const model = status.model ? `model ${status.model}${status.dimension ? ` (${status.dimension} dimensions)` : ''}` : 'no model';
  const error = status.error ? `  error: ${status.error}` : '';
  return `${status.state}  ${count(status.embedded)} / ${count(status.total)} nodes embedded, ${count(status.pending)} pending  ${model}${error}`;
}

/** Nodes embedded per second over the last few samples (a short window, so a pause shows soon); null until two samples differ in time. */
export class EmbeddingRate {
  readonly #samples: { at: number; embedded: number }[] = [];
  constructor(private readonly windowMs = 10_000) {}

  add(at: number, embedded: number): number | null {
    this.#samples.push({ at, embedded });
    while (this.#samples.length > 2 && at - this.#samples[0].at > this.windowMs) this.#samples.shift();
    const first = this.#samples[0];
    if (at === first.at) return null;
    // A node edited meanwhile counts as not embedded again: the rate never goes below nothing.
    return Math.max(0, ((embedded - first.embedded) * 1000) / (at - first.at));
  }
}

/** Nothing left to wait for: every node embedded, or no embedder at work (off, or vectors from clients). */
const finished = (status: EmbeddingStatus) => status.pending === 0 || status.state === 'off' || status.state === 'client';

export interface WatchOptions {
  read: () => Promise<EmbeddingStatus>;
  out: { write(text: string): unknown; isTTY?: boolean };
  now?: () => number;
  wait?: (ms: number) => Promise<unknown>;
  intervalMs?: number;
}

/**
 * Asks for the status every `intervalMs` until nothing is left to embed, then writes the final status line. On a
 * terminal the progress line is redrawn in place; elsewhere (a log, a pipe) a line is written each time the figures change.
 */
export async function watchEmbeddings({ read, out, now = Date.now, wait = sleep, intervalMs = 1_000 }: WatchOptions): Promise<EmbeddingStatus> {
  const rate = new EmbeddingRate();
  let drawn = false;
  let last = '';
  for (;;) {
    const status = await read();
    if (finished(status)) {
      out.write(`${drawn ? '\r\x1b[K' : ''}${statusLine(status)}\n`);
      return status;
    }
    const line = progressLine(status, rate.add(now(), status.embedded));
    if (out.isTTY) {
      out.write(`\r${line}\x1b[K`);
      drawn = true;
    } else {
      const figures = `${status.state} ${status.embedded} ${status.total} ${status.pending}`;
      if (figures !== last) out.write(`${line}\n`);
      last = figures;
    }
    await wait(intervalMs);
  }
}

/** Runs `embeddings` with the command line's arguments after the command name; `usage` is the CLI's help, shown with a mistake. */
export async function embeddingsCommand(args: string[], usage: string): Promise<void> {
  const { values } = parseArgs({ args, options: { workspace: { type: 'string' }, watch: { type: 'boolean', default: false }, format: { type: 'string', default: 'text' } } });
  if (values.format !== 'text' && values.format !== 'json') throw new AppError('invalid_request', `--format is text or json\n\n${usage}`);
  if (values.watch && values.format === 'json') throw new AppError('invalid_request', '--watch draws a progress line: leave out --format json');
  let read: () => Promise<EmbeddingStatus>;
  if (values.workspace) {
    const key = process.env.API_KEY;
    if (!key) throw new AppError('invalid_request', 'Set API_KEY to a user or agent key of a member of the workspace');
    const client = serviceClient(key, values.workspace);
    read = () => client.context.embeddings();
  } else {
    // Every workspace at once is the operator's view.
    const token = process.env.ADMIN_TOKEN;
    if (!token) throw new AppError('invalid_request', 'Set ADMIN_TOKEN for every workspace, or give --workspace with API_KEY');
    const client = serviceClient(token);
    read = () => client.admin.embeddings();
  }
  if (values.watch) {
    await watchEmbeddings({ read, out: process.stdout });
    return;
  }
  const status = await read();
  process.stdout.write(`${values.format === 'json' ? JSON.stringify(status, null, 2) : statusLine(status)}\n`);
}
