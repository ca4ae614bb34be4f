import type { AnalystListReportsResponse, CsvAnswer, GraphSchema, ReportResult, RunCypherData, RunCypherResponse } from '@sdk';
import { analystClient } from '../analyst-session.ts';

/** The calls of the Cypher page: all to the analysts' operations, with the analyst token (analyst-session.ts). */

export type CypherInput = RunCypherData['body'];
export type CypherAnswer = RunCypherResponse;
export type ReportSummary = AnalystListReportsResponse['reports'][number];
export type ReportParams = Record<string, string | number | boolean>;

/** One statement. */
export const runCypher = (input: CypherInput): Promise<CypherAnswer> => analystClient().analyst.cypher(input);

/** A CSV answer, for a download. */
const download = (answer: CsvAnswer) => new Blob([answer.text], { type: 'text/csv;charset=utf-8' });

export const cypherCsv = async (input: CypherInput): Promise<Blob> => download(await analystClient().analyst.cypherCsv(input));

/** The schema panel's contents: the same operation as the Cypher shell's `:schema`. */
export const readSchema = (): Promise<GraphSchema> => analystClient().analyst.schema();

export const listReports = (): Promise<ReportSummary[]> => analystClient().analyst.reports.list();

export const runReport = (name: string, workspaceId: string, params: ReportParams): Promise<ReportResult> =>
  analystClient().analyst.reports.run(name, { workspaceId, ...params });

export const reportCsv = async (name: string, workspaceId: string, params: ReportParams): Promise<Blob> =>
  download(await analystClient().analyst.reports.csv(name, { workspaceId, ...params }));
