import { stringify } from 'csv-stringify/sync';
import type { Context } from 'koa';

/** Rows of columns, answered as JSON (the default), CSV or NDJSON as the caller's Accept asks. */
export type TabularFormat = 'json' | 'csv' | 'ndjson';

export const csvType = 'text/csv';
export const ndjsonType = 'application/x-ndjson';

export function tabularFormat(ctx: Context, offered: TabularFormat[] = ['json', 'csv', 'ndjson']): TabularFormat {
  const types = { json: 'application/json', csv: csvType, ndjson: ndjsonType } as const;
  const chosen = ctx.accepts(...offered.map((f) => types[f]));
  return (offered.find((f) => types[f] === chosen) ?? 'json') as TabularFormat;
}

/** One CSV cell: scalars as text, null as empty, lists and maps as their JSON. */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** RFC 4180 CSV with a header row (csv-stringify quotes what needs it). */
export function toCsv(columns: string[], rows: unknown[][]): string {
  return stringify([columns, ...rows.map((row) => row.map(csvCell))], { record_delimiter: 'windows' });
}

/** One record of the same CSV, its line end included, for answers written a row at a time. */
export function csvRecord(values: unknown[]): string {
  return stringify([values.map(csvCell)], { record_delimiter: 'windows' });
}

/** Sends CSV with the row count in a header, since the body cannot say. */
export function sendCsv(ctx: Context, columns: string[], rows: unknown[][]): void {
  csvHeaders(ctx, rows.length);
  ctx.body = toCsv(columns, rows);
}

/**
 * The CSV media type and the headers that say what the body cannot: the row count and, for an answer that may be
 * cut, whether it was (X-Truncated) and why (X-Truncated-By, absent when it was not).
 */
export function csvHeaders(ctx: Context, rowCount: number, truncation?: { truncatedBy: string | null }): void {
  ctx.type = `${csvType}; charset=utf-8`;
  ctx.set('X-Row-Count', String(rowCount));
  if (!truncation) return;
  ctx.set('X-Truncated', String(truncation.truncatedBy !== null));
  if (truncation.truncatedBy !== null) ctx.set('X-Truncated-By', truncation.truncatedBy);
}
