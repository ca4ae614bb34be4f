import { Type } from '@sinclair/typebox';
import { Strict, literals } from '../http/common-schemas.js';
import { type AnyRoute, defineRoute } from '../http/route.js';
import { csvType, ndjsonType, tabularFormat } from '../http/tabular.js';
import { answerCsv, answerJson, streamNdjson } from './answers.js';
import type { RowSink } from './repository.js';
import { PlanOperatorSchema } from './schemas.js';
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

/** The analysts' ad-hoc Cypher. */
export function analystRoutes(s: { analyst: AnalystService }): AnyRoute[] {
  return [
    defineRoute({
      method: 'post', path: '/api/v1/admin/cypher', operationId: 'runCypher', tag: 'Analysts',
      access: { kind: 'operator', analyst: true },
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
        const run = (sink: RowSink) => s.analyst.run(body, caller, sink, requestId);
        const format = tabularFormat(ctx);
        if (format === 'ndjson') return streamNdjson(ctx, run);
        return format === 'csv' ? answerCsv(ctx, run) : answerJson(ctx, run);
      },
    }),
  ];
}
