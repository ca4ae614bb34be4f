import { PassThrough } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { Context } from 'koa';
import { AppError } from '../errors.js';
import { Strict } from '../http/common-schemas.js';
import { type AnyRoute, defineRoute } from '../http/route.js';
import { csvType, ndjsonType, sendCsv, tabularFormat } from '../http/tabular.js';
import type { RowSink } from './repository.js';
import { type AnalystCaller, type AnalystService, type CypherInput, type CypherOutcome, cypherLimits } from './service.js';

/** A JSON or CSV answer is built in memory; past this many bytes of rows it is cut like one past its limit. */
const maxBufferedBytes = 64 * 1024 * 1024;

const CypherBody = Strict(
  {
    query: Type.String({ minLength: 1, maxLength: 100_000, description: 'One Cypher statement; a trailing semicolon is ignored' }),
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
  truncated: Type.Boolean({ description: 'More rows were there than `limit` (or than the answer may hold)' }),
  limit: Type.Integer(),
  elapsedMs: Type.Integer({ minimum: 0 }),
});

const description = `Runs one read-only Cypher statement over the whole graph, for the operator's analysts (ANALYST_TOKEN or ADMIN_TOKEN).
Refused with 403 query_refused unless Neo4j's EXPLAIN reports it as a read ('r') and every operator of its plan is an
allowed read operator (no LOAD CSV, no SHOW/TERMINATE commands, no CALL … IN TRANSACTIONS) and every procedure it calls
is allowed (db.labels, db.relationshipTypes, db.propertyKeys, db.schema.*, db.index.fulltext.query*, dbms.components).
It runs in a READ transaction that is never committed, with a timeout (422 query_timeout) and, on the self-started
Neo4j, a memory cap per transaction (422 query_memory_exceeded). A syntax or semantic error is 400 invalid_cypher with
Neo4j's message and position. At most ${cypherLimits.maxLimit} rows; more set \`truncated\`.
Neo4j values map to JSON: nodes {elementId, labels, properties}, relationships {elementId, type, startElementId,
endElementId, properties}, paths {nodes, relationships}, temporal values and durations as ISO strings, points
{srid, x, y, z?}, integers as numbers when exact and as strings beyond 2^53.
Accept: text/csv gives CSV (lists and maps as JSON; X-Row-Count and X-Truncated headers); application/x-ndjson a
stream: a {"columns"} line, one JSON array per row, then {"rowCount", "truncated", "limit", "elapsedMs"}, or
{"error": problem} when the query fails after rows were sent.`;

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
          otherTypes: { [csvType]: 'CSV with a header row', [ndjsonType]: 'A stream of JSON lines' },
        },
      },
      errors: [422, 429],
      handler: async ({ ctx, body, requestId }) => {
        const caller = ctx.state.operator as AnalystCaller;
        const format = tabularFormat(ctx);
        if (format === 'ndjson') return streamNdjson(ctx, (sink) => s.analyst.run(body, caller, sink, requestId));
        const { columns, rows, outcome } = await collect(s.analyst, body, caller, requestId);
        if (format === 'csv') return sendCsv(ctx, columns, rows, outcome.truncated);
        ctx.body = { columns, rows, rowCount: rows.length, truncated: outcome.truncated, limit: outcome.limit, elapsedMs: outcome.elapsedMs };
      },
    }),
  ];
}

async function collect(analyst: AnalystService, input: CypherInput, caller: AnalystCaller, requestId: string) {
  let columns: string[] = [];
  const rows: unknown[][] = [];
  let bytes = 0;
  const outcome = await analyst.run(input, caller, {
    columns: (keys) => void (columns = keys),
    row: (values) => {
      rows.push(values);
      bytes += JSON.stringify(values).length;
      return bytes < maxBufferedBytes;
    },
  }, requestId);
  return { columns, rows, outcome };
}

/** The problem body of an error that happens after a stream began (its status line is long gone). */
function problemLine(err: unknown): string {
  const problem = err instanceof AppError ? err : new AppError('internal_error', 'An unexpected error occurred');
  return `${JSON.stringify({ error: { type: `https://playbooks.dev/problems/${problem.code.replace(/_/g, '-')}`, title: problem.title, status: problem.status, detail: problem.message, code: problem.code } })}\n`;
}

/**
 * NDJSON: the answer begins with the first row (or the end), so an error before it (a refusal, a syntax error,
 * a timeout before any row) is still a problem with its status. Rows are written as the client reads them: a
 * full socket holds the pull from Neo4j, and a client that goes away stops the query.
 */
async function streamNdjson(ctx: Context, run: (sink: RowSink) => Promise<CypherOutcome>): Promise<void> {
  const out = new PassThrough();
  let gone = false;
  out.once('close', () => (gone = true));
  let begun = false;
  let begin!: () => void;
  const began = new Promise<void>((resolve) => (begin = resolve));
  const write = (line: string) => {
    if (!gone && !out.destroyed && !out.writableEnded) out.write(line);
  };
  const sink: RowSink = {
    columns: (keys) => write(`${JSON.stringify({ columns: keys })}\n`),
    row: async (values) => {
      if (gone) return false;
      begun = true;
      begin();
      if (!out.write(`${JSON.stringify(values)}\n`)) {
        await new Promise<void>((resolve) => {
          out.once('drain', resolve);
          out.once('close', resolve);
        });
      }
      return !gone;
    },
  };
  const finished = run(sink).then(
    (outcome) => {
      if (!gone && !out.destroyed) out.end(`${JSON.stringify({ rowCount: outcome.rows, truncated: outcome.truncated, limit: outcome.limit, elapsedMs: outcome.elapsedMs })}\n`);
    },
    (err) => {
      if (!begun) throw err;
      if (!gone && !out.destroyed) out.end(problemLine(err));
    },
  );
  await Promise.race([began, finished]);
  ctx.type = `${ndjsonType}; charset=utf-8`;
  ctx.body = out;
}
