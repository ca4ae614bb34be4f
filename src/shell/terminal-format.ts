import { PlaybooksError, type RunCypherResponse } from '@playbooks/client';
import { failureText } from './connection.js';

/**
 * The analysts' answers in a terminal (`npm run cypher`, `npm run cli -- report`): parameters from the command
 * line, rows as a table, CSV or JSON, and errors as lines.
 */

export type OutputFormat = 'table' | 'csv' | 'json';

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

/** One operator of the plan an EXPLAIN or PROFILE answer holds. */
type PlanOperator = NonNullable<RunCypherResponse['plan']>[number];

/** A plan as a table, each operator under its parent as Neo4j's tools draw it; rows and db hits when it was profiled. */
export function planTable(plan: PlanOperator[]): string {
  const profiled = plan.some((op) => op.rows !== null);
  const estimate = (n: number | null) => (n === null ? '' : String(Math.round(n * 100) / 100));
  const columns = ['operator', 'details', 'estimated rows', ...(profiled ? ['rows', 'db hits'] : [])];
  const rows = plan.map((op) => [`${'| '.repeat(op.depth)}+${op.operator}`, op.details, estimate(op.estimatedRows), ...(profiled ? [op.rows, op.dbHits] : [])]);
  const hits = plan.reduce((sum, op) => sum + (op.dbHits ?? 0), 0);
  return `${profiled ? 'Profile' : 'Plan'}:\n${table(columns, rows, 80)}${profiled ? `\n(${hits} db hits in all)` : ''}`;
}

/** An answer of {columns, rows, …, plan?} in the chosen format (a CSV answer is its text already). */
export function render(format: OutputFormat, answer: unknown, footer?: string): string {
  if (format === 'csv') return String(answer ?? '').trimEnd();
  if (format === 'json') return JSON.stringify(answer, null, 2);
  const { columns, rows, plan } = answer as { columns: string[]; rows: unknown[][]; plan?: PlanOperator[] };
  const text = `${table(columns, rows)}\n${footer ?? `(${rows.length} row${rows.length === 1 ? '' : 's'})`}`;
  return plan ? `${text}\n${planTable(plan)}` : text;
}

/**
 * An error as a line; for a Cypher error with a position, its first line (Neo4j's own excerpt left out) and then the
 * line of the query with a caret under the position.
 */
export function describeError(err: unknown, query?: string): string {
  if (!(err instanceof PlaybooksError)) return err instanceof Error ? err.message : String(err);
  const position = err.extensions.position as { line: number; column: number } | undefined;
  const line = position && query?.split('\n')[position.line - 1];
  if (line === undefined) return failureText(err);
  return `${failureText(err).split('\n')[0]}\n  ${line}\n  ${' '.repeat(Math.max(0, position!.column - 1))}^`;
}
