import { type AnalystListReportsResponse, type GraphSchema, PlaybooksError, type ReportResult, type RunCypherData, type RunCypherResponse } from '@sdk';
import { analystClient } from '../analyst-session.ts';

/** The calls of the Cypher page: all to the analysts' routes, with the analyst token (analyst-session.ts). */

export type CypherInput = RunCypherData['body'];
export type CypherAnswer = RunCypherResponse;
export type ReportSummary = AnalystListReportsResponse['reports'][number];
export type ReportParams = Record<string, string | number | boolean>;

const cypherPath = '/api/v1/admin/cypher';
const reportPath = (name: string) => `/api/v1/admin/reports/${encodeURIComponent(name)}`;

/** One statement; a read sent as a POST, so it is marked idempotent (no Idempotency-Key), like the shell's. */
export async function runCypher(input: CypherInput): Promise<CypherAnswer> {
  return (await analystClient().request<CypherAnswer>('POST', cypherPath, { json: input, idempotent: true })).data;
}

/** An answer as the service's CSV, for a download. */
async function csvOf(method: string, path: string, init: { json?: unknown; query?: Record<string, string | number | boolean> }): Promise<Blob> {
  const res = await analystClient().raw(method, path, { ...init, idempotent: true, headers: { accept: 'text/csv' } });
  if (!res.ok) throw await PlaybooksError.fromResponse(res);
  return new Blob([await res.arrayBuffer()], { type: 'text/csv;charset=utf-8' });
}

export const cypherCsv = (input: CypherInput) => csvOf('POST', cypherPath, { json: input });

/** The schema panel's contents: the same route as the Cypher shell's `:schema`. */
export async function readSchema(): Promise<GraphSchema> {
  return (await analystClient().request<GraphSchema>('GET', '/api/v1/admin/schema')).data;
}

export async function listReports(): Promise<ReportSummary[]> {
  return (await analystClient().request<AnalystListReportsResponse>('GET', '/api/v1/admin/reports')).data.reports;
}

export async function runReport(name: string, workspaceId: string, params: ReportParams): Promise<ReportResult> {
  return (await analystClient().request<ReportResult>('GET', reportPath(name), { query: { workspaceId, ...params } })).data;
}

export const reportCsv = (name: string, workspaceId: string, params: ReportParams) => csvOf('GET', reportPath(name), { query: { workspaceId, ...params } });
