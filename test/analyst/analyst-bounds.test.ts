import v8 from 'node:v8';
import vm from 'node:vm';
import { expect } from 'chai';
import { parse } from 'csv-parse/sync';
import neo4j from 'neo4j-driver';
import { cypherLimits } from '../../src/analyst/service.js';
import { jsonStringBytes, toJsonWithin } from '../../src/analyst/values.js';
import { problem, request, requestStream } from '../support/api.js';
import { analystToken, env } from '../support/harness.js';
import { measuredStall } from '../support/healthz.js';

const cypher = (body: Record<string, unknown>, accept?: string) =>
  request('POST', '/api/v1/admin/cypher', { token: analystToken, body, headers: accept ? { accept } : {} });

/** A value many times the per-value bound, which Neo4j makes quickly; the row before it is small. */
const hugeValueQuery = "UNWIND [1, 2] AS i RETURN i, CASE i WHEN 1 THEN 'small' ELSE reduce(s = '', x IN range(1, 22) | s + s + 'xxxxxxxxxx') END AS big";
/** More rows than a buffered answer may hold, none of them large. */
const manyRowsQuery = "UNWIND range(1, 100000) AS i RETURN i, reduce(s = '', x IN range(1, 10) | s + 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx') AS pad";

/** A full collection, when this process can have one: the test API runs in this process. */
const collectGarbage: () => void = (() => {
  if (typeof globalThis.gc === 'function') return globalThis.gc;
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
})();

/** The JS heap of this process, where the test API runs, after a full collection. */
function heapBytes(): number {
  collectGarbage();
  return process.memoryUsage().heapUsed;
}

/** The API's resident memory as its /metrics reports it (prom-client's default process metric). */
async function residentBytes(): Promise<number> {
  collectGarbage();
  const res = await request('GET', '/metrics');
  expect(res.status, res.text).to.equal(200);
  const line = /^process_resident_memory_bytes (\d+(?:\.\d+)?(?:e\+\d+)?)$/m.exec(res.text);
  expect(line, 'process_resident_memory_bytes in /metrics').to.not.equal(null);
  return Number(line![1]);
}

/** An NDJSON answer read as it arrives, keeping only its first and last lines, its size and its line count. */
async function ndjsonEnds(body: Record<string, unknown>): Promise<{ status: number; first: unknown; last: any; lines: number; bytes: number }> {
  const res = await requestStream('POST', '/api/v1/admin/cypher', { token: analystToken, body, headers: { accept: 'application/x-ndjson' } });
  const decoder = new TextDecoder();
  let pending = '';
  let first: string | undefined;
  let last: string | undefined;
  let lines = 0;
  let bytes = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.byteLength;
    const parts = (pending + decoder.decode(chunk, { stream: true })).split('\n');
    pending = parts.pop()!;
    if (parts.length === 0) continue;
    first ??= parts[0];
    last = parts[parts.length - 1];
    lines += parts.length;
  }
  return { status: res.status, first: first && JSON.parse(first), last: last && JSON.parse(last), lines, bytes };
}

const MB = 1_000_000;

describe('analyst answers are bounded in bytes (POST /api/v1/admin/cypher)', () => {
  describe('each query in a process of its own', () => {
    it('a value of tens of megabytes leaves the API’s heap and resident memory where they were', async function () {
      this.timeout(60_000);
      const heapBefore = heapBytes();
      const before = await residentBytes();
      const res = await cypher({ query: hugeValueQuery });
      const after = await residentBytes();
      const heapAfter = heapBytes();
      expect(res.status, res.text.slice(0, 500)).to.equal(200);
      expect(res.body).to.include({ rowCount: 1, truncatedBy: 'bytes' });
      process.stdout.write(`      resident memory: ${(before / MB).toFixed(0)} MB before, ${(after / MB).toFixed(0)} MB after; heap ${(heapBefore / MB).toFixed(0)} MB before, ${(heapAfter / MB).toFixed(0)} MB after\n`);
      expect(heapAfter - heapBefore, 'growth of the heap').to.be.below(5 * MB);
      expect(after - before, 'growth of resident memory').to.be.below(20 * MB);
    });

    it('/healthz is not held up while the value is decoded', async function () {
      this.timeout(60_000);
      const { reply, worstHealthzMs, polls, idleMs, boundMs } = await measuredStall(env.service.url, () => cypher({ query: hugeValueQuery }));
      expect(reply.status, reply.text.slice(0, 500)).to.equal(200);
      expect(reply.body).to.include({ rowCount: 1, truncatedBy: 'bytes' });
      process.stdout.write(`      /healthz: ${idleMs.toFixed(1)} ms idle, at worst ${worstHealthzMs.toFixed(1)} ms over ${polls} requests while the query ran\n`);
      expect(polls, '/healthz was asked while the query ran').to.be.greaterThan(0);
      expect(worstHealthzMs, `/healthz waited ${worstHealthzMs.toFixed(0)} ms (idle ${idleMs.toFixed(0)} ms)`).to.be.at.most(boundMs);
    });

    it('a record too large for a query’s heap is 422 query_memory_exceeded, and the next query runs', async function () {
      this.timeout(60_000);
      // A lazy range costs Neo4j next to nothing; decoded, its millions of integers do not fit the worker's heap.
      const res = await cypher({ query: 'RETURN range(1, 5000000) AS l' });
      problem(res, 422, 'query_memory_exceeded');
      expect(res.body.detail).to.match(/more memory than an analyst query may hold/);
      const next = await cypher({ query: 'RETURN 1 AS one' });
      expect(next.status).to.equal(200);
      expect(next.body.rows).to.deep.equal([[1]]);
    });
  });

  describe('a value past its bound', () => {
    it('ends a JSON answer before its row and says why', async () => {
      const res = await cypher({ query: hugeValueQuery });
      expect(res.status, res.text.slice(0, 500)).to.equal(200);
      expect(res.body).to.deep.include({ rows: [[1, 'small']], rowCount: 1, truncated: true, truncatedBy: 'bytes' });
      expect(res.text.length).to.be.below(1000);
    });

    it('ends a CSV answer the same way, with the reason in X-Truncated-By', async () => {
      const res = await cypher({ query: hugeValueQuery }, 'text/csv');
      expect(res.status, res.text.slice(0, 500)).to.equal(200);
      expect(res.headers.get('x-row-count')).to.equal('1');
      expect(res.headers.get('x-truncated')).to.equal('true');
      expect(res.headers.get('x-truncated-by')).to.equal('bytes');
      expect(parse(res.text)).to.deep.equal([['i', 'big'], ['1', 'small']]);
    });

    it('ends an NDJSON stream the same way, with the reason on its last line', async () => {
      const res = await cypher({ query: hugeValueQuery }, 'application/x-ndjson');
      expect(res.status, res.text.slice(0, 500)).to.equal(200);
      const lines = res.text.trimEnd().split('\n').map((l) => JSON.parse(l));
      expect(lines).to.have.length(3);
      expect(lines[0]).to.deep.equal({ columns: ['i', 'big'] });
      expect(lines[1]).to.deep.equal([1, 'small']);
      expect(lines[2]).to.include({ rowCount: 1, truncated: true, truncatedBy: 'bytes' });
    });

    it('counts a value’s bytes as its JSON takes them: up to the bound it is answered, one character more is not', async function () {
      this.timeout(120_000);
      // Characters whose JSON takes from one to six bytes; each value is one of them repeated.
      for (const [char, size] of [['x', 1], ['é', 2], ['"', 2], ['あ', 3], ['\u0001', 6]] as const) {
        const fits = Math.floor((cypherLimits.maxValueBytes - 2) / size);
        const query = 'RETURN substring(reduce(s = $char, x IN range(1, 20) | s + s), 0, $n) AS s';
        // Ten values of a megabyte or so built in Cypher: time enough for a busy machine.
        const answered = await cypher({ query, params: { char, n: fits }, timeoutMs: 30_000 });
        expect(answered.status, answered.text.slice(0, 300)).to.equal(200);
        expect(answered.body, `${fits} × ${JSON.stringify(char)}`).to.include({ rowCount: 1, truncated: false });
        expect(answered.body.rows[0][0]).to.have.length(fits);
        const cut = await cypher({ query, params: { char, n: fits + 1 }, timeoutMs: 30_000 });
        expect(cut.body, `one more ${JSON.stringify(char)}`).to.include({ rowCount: 0, truncated: true, truncatedBy: 'bytes' });
      }
    });
  });

  describe('an answer past its bound', () => {
    it('cuts a JSON answer at its byte bound, keeping the rows before, in order', async function () {
      this.timeout(60_000);
      const res = await cypher({ query: manyRowsQuery, limit: 100_000, timeoutMs: 50_000 });
      expect(res.status, res.text.slice(0, 500)).to.equal(200);
      expect(res.body).to.include({ truncated: true, truncatedBy: 'bytes', limit: 100_000 });
      const { rowCount, rows } = res.body;
      expect(rowCount).to.equal(rows.length).and.be.above(10_000).and.below(100_000);
      expect(rows[0][0]).to.equal(1);
      expect(rows[rowCount - 1][0]).to.equal(rowCount);
      const size = Buffer.byteLength(res.text);
      expect(size).to.be.at.most(cypherLimits.maxBufferedAnswerBytes + 1000);
      expect(size).to.be.above(cypherLimits.maxBufferedAnswerBytes - 1000);
    });

    it('cuts a CSV answer at the same bound', async function () {
      this.timeout(60_000);
      const res = await cypher({ query: manyRowsQuery, limit: 100_000, timeoutMs: 50_000 }, 'text/csv');
      expect(res.status, res.text.slice(0, 500)).to.equal(200);
      expect(res.headers.get('x-truncated')).to.equal('true');
      expect(res.headers.get('x-truncated-by')).to.equal('bytes');
      const rowCount = Number(res.headers.get('x-row-count'));
      expect(rowCount).to.be.above(10_000).and.below(100_000);
      const lines = res.text.trimEnd().split('\r\n');
      expect(lines).to.have.length(rowCount + 1);
      expect(lines[rowCount].split(',')[0]).to.equal(String(rowCount));
      expect(Buffer.byteLength(res.text)).to.be.at.most(cypherLimits.maxBufferedAnswerBytes + 1000);
    });

    it('cuts an NDJSON stream at its own, larger bound', async function () {
      this.timeout(120_000);
      // Rows large enough that the row limit comes after the streamed bound.
      const pad = 'x'.repeat(3_600);
      const res = await ndjsonEnds({ query: 'UNWIND range(1, 100000) AS i RETURN i, $pad AS pad', params: { pad }, limit: 100_000, timeoutMs: 60_000 });
      expect(res.status).to.equal(200);
      expect(res.first).to.deep.equal({ columns: ['i', 'pad'] });
      expect(res.last).to.include({ truncated: true, truncatedBy: 'bytes' });
      expect(res.last.rowCount).to.equal(res.lines - 2).and.be.below(100_000);
      expect(res.bytes).to.be.at.most(cypherLimits.maxStreamedAnswerBytes + 1000);
      expect(res.bytes).to.be.above(cypherLimits.maxStreamedAnswerBytes - 10_000);
    });
  });

  describe('the reason in every format', () => {
    it("an answer past its row limit is truncated by 'rows'", async () => {
      const query = 'UNWIND range(1, 10) AS i RETURN i';
      const json = await cypher({ query, limit: 3 });
      expect(json.body).to.include({ rowCount: 3, truncated: true, truncatedBy: 'rows' });
      const csv = await cypher({ query, limit: 3 }, 'text/csv');
      expect([csv.headers.get('x-row-count'), csv.headers.get('x-truncated'), csv.headers.get('x-truncated-by')]).to.deep.equal(['3', 'true', 'rows']);
      const ndjson = await cypher({ query, limit: 3 }, 'application/x-ndjson');
      expect(JSON.parse(ndjson.text.trimEnd().split('\n').pop()!)).to.include({ rowCount: 3, truncated: true, truncatedBy: 'rows' });
    });

    it('a whole answer is not truncated and names no reason', async () => {
      const query = 'UNWIND range(1, 3) AS i RETURN i';
      const json = await cypher({ query, limit: 3 });
      expect(json.body).to.include({ rowCount: 3, truncated: false, truncatedBy: null });
      const csv = await cypher({ query, limit: 3 }, 'text/csv');
      expect([csv.headers.get('x-row-count'), csv.headers.get('x-truncated'), csv.headers.get('x-truncated-by')]).to.deep.equal(['3', 'false', null]);
      const ndjson = await cypher({ query, limit: 3 }, 'application/x-ndjson');
      expect(JSON.parse(ndjson.text.trimEnd().split('\n').pop()!)).to.include({ rowCount: 3, truncated: false, truncatedBy: null });
    });
  });

  describe('measuring a value without serialising it', () => {
    it('a string’s JSON size: escapes, multi-byte characters, surrogate pairs and lone surrogates', () => {
      for (const text of ['', 'plain', 'tab\tquote"back\\slash\n', '\u0000\u001f\u007f', 'é中😀', '\ud83d', 'a\udc00b', 'x'.repeat(10_000)]) {
        expect(jsonStringBytes(text), JSON.stringify(text)).to.equal(Buffer.byteLength(JSON.stringify(text)));
      }
    });

    it('a Neo4j value’s JSON size matches the JSON it becomes, and the walk stops at its budget', () => {
      const { Node, Relationship, Path, PathSegment, Point, Date: Neo4jDate, Duration } = neo4j.types;
      const a = new Node(neo4j.int(1), ['ContextNode'], { title: 'Alpha "α"', n: neo4j.int(7) }, '4:x:1');
      const b = new Node(neo4j.int(2), [], {}, '4:x:2');
      const r = new Relationship(neo4j.int(3), neo4j.int(1), neo4j.int(2), 'REQUIRES', { w: 0.5 }, '5:x:3', '4:x:1', '4:x:2');
      const values: unknown[] = [
        null, true, false, 0, -1.5, 1e21, Number.NaN, neo4j.int('9007199254740993'), neo4j.int(42), 'text',
        [], [1, [2, 'three'], { four: null }], {}, JSON.parse('{"__proto__": 1, "k\\"ey": [true]}'),
        a, r, new Path(a, b, [new PathSegment(a, r, b)]), new Point(neo4j.int(7203), 1.5, 2.5), new Point(neo4j.int(9157), 1, 2, 3),
        new Neo4jDate(2026, 1, 2), new Duration(0, 1, 7200, 0), new Uint8Array([1, 2, 3, 4]),
      ];
      for (const value of values) {
        const measured = toJsonWithin(value, Number.POSITIVE_INFINITY)!;
        const bytes = Buffer.byteLength(JSON.stringify(measured.json));
        expect(measured.bytes, JSON.stringify(measured.json)).to.equal(bytes);
        expect(toJsonWithin(value, bytes)?.bytes).to.equal(bytes);
        expect(toJsonWithin(value, bytes - 1)).to.equal(undefined);
      }
    });
  });
});
