import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream } from 'node:stream/web';
import { PlaybooksClient, PlaybooksError } from '@playbooks/client';

/**
 * How the terminal commands reach a running service: through the SDK, at API_URL, with the key a command is given,
 * like any client of the service (so they work against a remote deployment too).
 */

export const apiUrl = () => (process.env.API_URL ?? 'http://localhost:3000').replace(/\/$/, '');

/**
 * The limit of each attempt. The SDK's default suits a program that must not hang; a person at a terminal waits
 * while the service works (every route bounds its own work: a query's timeout, an import's batch) and can stop the
 * command with Ctrl-C.
 */
const attemptLimitMs = 10 * 60_000;

/** The SDK's client for a command, with its retries, paging and problems as PlaybooksError. */
export function serviceClient(apiKey: string, workspaceId?: string): PlaybooksClient {
  return new PlaybooksClient({ baseUrl: apiUrl(), apiKey, workspaceId, timeoutMs: attemptLimitMs });
}

/** A failed call as a terminal says it: the problem's code and detail, or where the service was looked for. */
export function failureText(err: PlaybooksError): string {
  if (err.code === 'network_error') return `Cannot reach the service at ${apiUrl()} (set API_URL): ${err.detail}`;
  return err.status !== 0 && err.code === `http_${err.status}` ? `HTTP ${err.status}: ${err.detail}` : `${err.code}: ${err.detail}`;
}

/**
 * The client's workspace exported to `file` as the answer arrives, rather than through `workspace.export()`: a
 * workspace's document may be larger than one string may be. The bytes written.
 */
export async function exportToFile(client: PlaybooksClient, file: string): Promise<number> {
  const body = await client.workspace.exportStream();
  const out = createWriteStream(file);
  await pipeline(Readable.fromWeb(body as ReadableStream), out);
  return out.bytesWritten;
}
