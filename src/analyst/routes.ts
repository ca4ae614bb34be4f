import { Type } from '@sinclair/typebox';
import { Id, Strict, literals } from '../api/common-schemas.js';
import { type AnyOperation, defineOperation } from '../api/operation.js';
import { csvType, ndjsonType, sendCsv, tabularFormat } from '../http/tabular.js';
import { reportCatalog, summaryOf } from '../reports/catalog.js';
import { type ReportParamValue, ReportResultSchema, ReportSummarySchema } from '../reports/schemas.js';
import { answerCsv, answerJson, streamNdjson } from './answer-formats.js';
import type { RowSink } from './repository.js';
import { GraphSchemaSchema, PlanOperatorSchema } from './schemas.js';
import { type AnalystCaller, type AnalystService, cypherLimits } from './service.js';

const CypherBody = Strict(
  {
    query: Type.String({ minLength: 1, maxLength: 100_000, description: 'One Cypher statement; a trailing semicolon is ignored; EXPLAIN or PROFILE at its start adds its plan to the answer' }),
    params: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'Query parameters ($name); whole JSON numbers are sent as integers' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: cypherLimits.maxLimit, default: cypherLimits.defaultLimit, description: 'Rows returned at most; more make the answer truncated' })),
    timeoutMs: Type.Optional(Type.Integer({ minimum: 1, maximum: cypherLimits.maxTimeoutMs, default: cypherLimits.defaultTimeoutMs, description: 'The transaction is stopped after this long (422 query_timeout)' })),
  },
  { required: ['query'] },
);

const CypherResult = Type.Object({
  columns: Type.Array(Type.String()),
  rows: Type.Array(Type.Array(Type.Unknown()), { description: 'One array per row, in the order of columns' }),
  rowCount: Type.Integer({ minimum: 0 }),
  truncated: Type.Boolean({ description: 'The query had more rows than the answer holds; truncatedBy says why' }),
  truncatedBy: Type.Union([literals(['rows', 'bytes']), Type.Null()], {
    description: "Why rows were left out: 'rows' past `limit`, 'bytes' at a value or an answer past its size bound; null when none were",
  }),
  limit: Type.Integer(),
  elapsedMs: Type.Integer({ minimum: 0 }),
  plan: Type.Optional(Type.Array(PlanOperatorSchema, {
    description: 'Only for a statement that begins with EXPLAIN (its plan; the query does not run and there are no rows) or PROFILE (the plan as the query ran, with the rows and db hits of each operator; the rows as usual)',
  })),
});

const mib = (bytes: number) => `${bytes / (1024 * 1024)} MiB`;

const description = `Runs one read-only Cypher statement over the whole graph, for the operator's analysts (ANALYST_TOKEN or ADMIN_TOKEN).
Refused with 403 query_refused unless Neo4j's EXPLAIN reports it as a read ('r') and every operator of its plan is an
allowed read operator (SHOW INDEXES and SHOW CONSTRAINTS pass; no LOAD CSV, no other SHOW or TERMINATE command, no
CALL … IN TRANSACTIONS) and every procedure it calls is allowed (db.labels, db.relationshipTypes, db.propertyKeys,
db.schema.*, db.index.fulltext.query*, dbms.components).
It runs in a READ transaction that is never committed, with a timeout (422 query_timeout) and, on the self-started
Neo4j, a memory cap per transaction (422 query_memory_exceeded). A syntax or semantic error is 400 invalid_cypher with
Neo4j's message and position (line, column, offset), both in the text as sent.
A statement that begins with EXPLAIN is checked the same way and not run: the answer holds its columns, no rows and
\`plan\`. One that begins with PROFILE runs to its end (rows past a bound are read and dropped): the answer holds its
rows and \`plan\` with the rows and db hits of each operator. The plan is in JSON answers and NDJSON's last line.
Answers are bounded in rows and in bytes, and the rows end before the first one past a bound (the rows before it are
kept), with \`truncated\` true and \`truncatedBy\` saying which: 'rows' past \`limit\` (at most ${cypherLimits.maxLimit}),
'bytes' at a value whose JSON passes ${mib(cypherLimits.maxValueBytes)} or at a row that would take the rows' JSON past
${mib(cypherLimits.maxBufferedAnswerBytes)} (JSON and CSV answers) or ${mib(cypherLimits.maxStreamedAnswerBytes)} (NDJSON).
Neo4j values map to JSON: nodes {elementId, labels, properties}, relationships {elementId, type, startElementId,
endElementId, properties}, paths {nodes, relationships}, temporal values and durations as ISO strings, points
{srid, x, y, z?}, integers as numbers when exact and as strings beyond 2^53.
Accept: text/csv gives CSV (lists and maps as JSON; X-Row-Count, X-Truncated and, when truncated, X-Truncated-By
headers); application/x-ndjson a stream: a {"columns"} line, one JSON array per row, then {"rowCount", "truncated",
"truncatedBy", "limit", "elapsedMs", "plan"?}, or {"error": problem} when the query fails after rows were sent.`;

const analystAccess = { kind: 'operator', analyst: true } as const;

/**
 * The workspaces' saved reports for the analysts, who hold no member's key: the same catalog, parameters and
 * answers as GET /api/v1/workspaces/{id}/reports/{name}, with the workspace as a query parameter. One route per
 * report, so its parameters are validated and documented like the workspace route's.
 */
function analystReportRoutes(services: { analyst: AnalystService }): AnyOperation[] {
  const reports = reportCatalog();
  const path = (name: string) => `/api/v1/admin/reports/${name}`;
  return [
    defineOperation({
      method: 'get', path: '/api/v1/admin/reports', operationId: 'analystListReports', tag: 'Analysts', access: analystAccess,
      summary: 'List the saved reports (analysts)',
      description: 'The saved reports an analyst may run in any workspace (ANALYST_TOKEN or ADMIN_TOKEN): the same list as a workspace\'s GET …/reports, each with its path here.',
      responses: { 200: { description: 'Every report, its parameters and columns', schema: Type.Object({ reports: Type.Array(ReportSummarySchema) }) } },
      handler: async ({ ctx }) => {
        ctx.body = { reports: reports.map((r) => summaryOf(r, path(r.name))) };
      },
    }),
    ...reports.map((report) =>
      defineOperation({
        method: 'get', path: path(report.name), tag: 'Analysts', access: analystAccess,
        operationId: `analystRunReport${report.name.replace(/(^|-)([a-z0-9])/g, (_, __, c: string) => c.toUpperCase())}`,
        summary: `Report for analysts: ${report.title}`,
        description: `${report.description}\n\nRuns in the workspace \`workspaceId\` names (a workspace that does not exist has no rows), for the operator's analysts (ANALYST_TOKEN or ADMIN_TOKEN); recorded in the audit log as analyst.report.run. Columns: ${report.columns.join(', ')}. Accept: text/csv gives CSV (lists as JSON).`,
        query: Type.Object({ workspaceId: Id('The workspace to run the report in'), ...report.querySchema.properties }, { additionalProperties: false }),
        responses: { 200: { description: 'The rows', schema: ReportResultSchema, otherTypes: { [csvType]: 'CSV with a header row' } } },
        handler: async ({ ctx, query, requestId }) => {
          const { workspaceId, ...given } = query as { workspaceId: string } & Partial<Record<string, ReportParamValue>>;
          const result = await services.analyst.runReport(workspaceId, report.name, given, ctx.state.operator as AnalystCaller, requestId);
          if (tabularFormat(ctx, ['json', 'csv']) === 'csv') return sendCsv(ctx, result.columns, result.rows);
          ctx.body = result;
        },
      }),
    ),
  ];
}

/** The analysts' ad-hoc Cypher, the database's schema, and the saved reports of any workspace. */
export function analystRoutes(services: { analyst: AnalystService }): AnyOperation[] {
  return [
    defineOperation({
      method: 'get', path: '/api/v1/admin/schema', operationId: 'readGraphSchema', tag: 'Analysts', access: analystAccess,
      summary: "Read the graph's schema",
      description: `The database's labels, relationship types and property keys (each sorted), its indexes and constraints (by name), for the operator's analysts (ANALYST_TOKEN or ADMIN_TOKEN): what the Cypher shell's \`:schema\` and the console's Cypher page show. Names shared by every workspace and no workspace's data, so, like the list of reports, not recorded in the audit log.`,
      responses: { 200: { description: 'The schema', schema: GraphSchemaSchema } },
      run: () => services.analyst.readSchema(),
    }),
    defineOperation({
      method: 'post', path: '/api/v1/admin/cypher', operationId: 'runCypher', tag: 'Analysts', idempotent: true,
      access: analystAccess,
      summary: 'Run a read-only Cypher query',
      description,
      body: CypherBody,
      responses: {
        200: {
          description: 'The rows',
          schema: CypherResult,
          headers: { 'X-Row-Count': 'CSV: the rows in the body', 'X-Truncated': 'CSV: whether rows were left out', 'X-Truncated-By': "CSV, when truncated: 'rows' or 'bytes'" },
          otherTypes: { [csvType]: 'CSV with a header row', [ndjsonType]: 'A stream of JSON lines' },
        },
      },
      errors: [422, 429],
      handler: async ({ ctx, body, requestId }) => {
        const caller = ctx.state.operator as AnalystCaller;
        const run = (sink: RowSink) => services.analyst.run(body, caller, sink, requestId);
        const format = tabularFormat(ctx);
        if (format === 'ndjson') return streamNdjson(ctx, run);
        return format === 'csv' ? answerCsv(ctx, run) : answerJson(ctx, run);
      },
    }),
    ...analystReportRoutes(services),
  ];
}
