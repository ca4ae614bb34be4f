/**
 * The terminal side of the analysts' endpoints: `npm run cypher` and `npm run cli -- report` talk to a running
 * service over HTTP (so they work against a remote deployment too) and print tables, CSV or JSON.
 */
import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export type OutputFormat = 'table' | 'csv' | 'json';

export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly body: { code?: string; detail?: string; position?: { line: number; column: number; offset: number } } | undefined,
    text: string,
  ) {
    super(body?.detail ? `${body.code ?? status}: ${body.detail}` : `HTTP ${status}: ${text.slice(0, 500)}`);
  }
}

/** The service could not be reached at all. */
export class ServiceUnreachable extends Error {}

export const apiUrl = () => (process.env.API_URL ?? 'http://localhost:3000').replace(/\/$/, '');

/** One request; a problem answer becomes an ApiProblem. CSV is asked for with Accept and returned as text. */
export async function call(method: string, path: string, token: string, options: { body?: unknown; csv?: boolean } = {}): Promise<{ json?: any; text: string; headers: Headers }> {
  const res = await send(method, path, token, options.csv ? 'text/csv' : 'application/json', options.body);
  const text = await res.text();
  const json = jsonOf(res, text);
  if (!res.ok) throw new ApiProblem(res.status, json, text);
  return { json, text, headers: res.headers };
}

/** A GET whose answer goes to `file` as it arrives (a workspace export): the bytes written. */
export async function download(path: string, token: string, file: string): Promise<number> {
  const res = await send('GET', path, token, 'application/json');
  if (!res.ok || !res.body) {
    const text = await res.text();
    throw new ApiProblem(res.status, jsonOf(res, text), text);
  }
  const out = createWriteStream(file);
  await pipeline(Readable.fromWeb(res.body as import('node:stream/web').ReadableStream), out);
  return out.bytesWritten;
}

/** The request itself; a service that cannot be reached at all is a ServiceUnreachable. */
async function send(method: string, path: string, token: string, accept: string, body?: unknown): Promise<Response> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept };
  if (body !== undefined) headers['content-type'] = 'application/json';
  try {
    return await fetch(`${apiUrl()}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (err) {
    throw new ServiceUnreachable(`Cannot reach the service at ${apiUrl()} (set API_URL): ${(err as Error).message}`);
  }
}

const jsonOf = (res: Response, text: string) => (/json/.test(res.headers.get('content-type') ?? '') && text ? JSON.parse(text) : undefined);

/** `k=v` pairs: the value as JSON when it parses (numbers, booleans, lists), else as a string. */
export function parseParams(pairs: string[]): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new Error(`--param takes name=value, got '${pair}'`);
    const raw = pair.slice(at + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      // a plain string
    }
    params[pair.slice(0, at)] = value;
  }
  return params;
}

const cellText = (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v));

/** A plain-text table, each cell cut to `width` characters. */
export function table(columns: string[], rows: unknown[][], width = 60): string {
  const cut = (s: string) => (s.length > width ? `${s.slice(0, width - 1)}…` : s).replace(/\s+/g, ' ');
  const cells = rows.map((row) => row.map((v) => cut(cellText(v))));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((r) => r[i]?.length ?? 0)));
  const line = (values: string[]) => values.map((v, i) => v.padEnd(widths[i])).join(' | ');
  return [line(columns), widths.map((w) => '-'.repeat(w)).join('-+-'), ...cells.map(line)].join('\n');
}

/** Prints an answer of {columns, rows, …} in the chosen format (CSV answers come as text already). */
export function render(format: OutputFormat, answer: { json?: any; text: string }, footer?: string): string {
  if (format === 'csv') return answer.text.trimEnd();
  if (format === 'json') return JSON.stringify(answer.json, null, 2);
  const { columns, rows } = answer.json;
  return `${table(columns, rows)}\n${footer ?? `(${rows.length} row${rows.length === 1 ? '' : 's'})`}`;
}

/** An error as a line (or, for a Cypher syntax error, the line of the query with a caret under the position). */
export function describeError(err: unknown, query?: string): string {
  if (err instanceof ApiProblem && err.body?.position && query) {
    const { line, column } = err.body.position;
    const text = query.split('\n')[line - 1] ?? '';
    return `${err.message}\n  ${text}\n  ${' '.repeat(Math.max(0, column - 1))}^`;
  }
  return err instanceof Error ? err.message : String(err);
}
