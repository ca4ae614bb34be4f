import * as op from '../generated/operations.gen.js';
import type * as T from '../generated/types.gen.js';
import type { Operation, Operations } from '../operations.js';
import type { CallOptions } from '../transport.js';
import type { Body } from './types.js';


/** An answer as CSV, with what its headers say of it. */
export interface CsvAnswer {
  /** The CSV, a header row first. */
  text: string;
  rowCount: number;
  /** Rows were left out past a bound (a Cypher answer only; a report is never cut). */
  truncated: boolean;
  /** Which bound, when truncated. */
  truncatedBy: 'rows' | 'bytes' | null;
}

const csv = { accept: 'text/csv' };

function csvOf(text: string, headers: Headers): CsvAnswer {
  const by = headers.get('x-truncated-by');
  return {
    text,
    rowCount: Number(headers.get('x-row-count') ?? 0),
    truncated: headers.get('x-truncated') === 'true',
    truncatedBy: by === 'rows' || by === 'bytes' ? by : null,
  };
}

/** A saved report's own parameters (as its list entry names them). */
export type ReportParams = Record<string, string | number | boolean>;

/** A saved report's parameters for an analyst: the workspace it runs in, and the report's own. */
export type AnalystReportQuery = { workspaceId: string } & ReportParams;

/** The operation of `reports` that runs the saved report `name`. */
function reportOperation(reports: Record<string, Operation>, name: string): Operation {
  if (!Object.hasOwn(reports, name)) throw new TypeError(`This client knows no saved report named '${name}'`);
  return reports[name];
}

/**
 * The operator's analysts (a client made with ANALYST_TOKEN or ADMIN_TOKEN, no workspace): read-only Cypher, the
 * graph's schema, and the saved reports of any workspace.
 */
export const analystPart = (ops: Operations) => ({
  /** One read-only statement: its columns and rows, bounded (`truncated`), with the plan of an EXPLAIN or PROFILE. */
  cypher: (body: Body<T.RunCypherData>, call?: CallOptions) => ops.send(op.runCypher, { body }, call),
  /** The same answer as CSV. */
  cypherCsv: async (body: Body<T.RunCypherData>, call?: CallOptions): Promise<CsvAnswer> => {
    const { data, response } = await ops.answer<string>(op.runCypher, { body, headers: csv, parseAs: 'text' }, call);
    return csvOf(data, response.headers);
  },
  /** The database's labels, relationship types, property keys, indexes and constraints. */
  schema: (call?: CallOptions) => ops.send(op.readGraphSchema, {}, call),
  reports: {
    /** Every saved report, its parameters and columns. */
    list: (call?: CallOptions) => ops.send(op.analystListReports, {}, call).then((r) => r.reports),
    /** The report `name` (as the list names it) run in `query.workspaceId` with the rest of `query` as its parameters. */
    run: async (name: string, query: AnalystReportQuery, call?: CallOptions): Promise<T.ReportResult> =>
      (await ops.answer<T.ReportResult>(reportOperation(op.analystReports, name), { query }, call)).data,
    /** The same rows as CSV. */
    csv: async (name: string, query: AnalystReportQuery, call?: CallOptions): Promise<CsvAnswer> => {
      const { data, response } = await ops.answer<string>(reportOperation(op.analystReports, name), { query, headers: csv, parseAs: 'text' }, call);
      return csvOf(data, response.headers);
    },
  },
});

/** The saved reports of the client's workspace, for any of its members: the analysts' reports, in one workspace. */
export const reportsPart = (ops: Operations) => ({
  /** Every saved report, its parameters and columns. */
  list: (call?: CallOptions) => ops.send(op.listReports, { path: ops.path() }, call).then((r) => r.reports),
  /** The report `name` (as the list names it) with its parameters. */
  run: async (name: string, params: ReportParams = {}, call?: CallOptions): Promise<T.ReportResult> =>
    (await ops.answer<T.ReportResult>(reportOperation(op.workspaceReports, name), { path: ops.path(), query: params }, call)).data,
  /** The same rows as CSV. */
  csv: async (name: string, params: ReportParams = {}, call?: CallOptions): Promise<CsvAnswer> => {
    const { data, response } = await ops.answer<string>(reportOperation(op.workspaceReports, name), { path: ops.path(), query: params, headers: csv, parseAs: 'text' }, call);
    return csvOf(data, response.headers);
  },
});
