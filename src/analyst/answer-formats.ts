/**
 * The three shapes of an analyst answer, each a RowSink that writes a row as it arrives: a row is serialised once,
 * into the bytes that are sent, and an answer is never held as values nor serialised whole.
 */
import { PassThrough } from 'node:stream';
import type { Context } from 'koa';
import { csvHeaders, csvRecord, ndjsonType } from '../http/tabular.js';
import { internalProblem, knownProblem, problemFields } from '../problems.js';
import type { RowSink } from './repository.js';
import { type CypherOutcome, cypherLimits } from './service.js';

type Run = (sink: RowSink) => Promise<CypherOutcome>;

/** How every answer ends: its rows, whether and why they were cut, the limit and the time; the plan when asked for. */
const summaryOf = (o: CypherOutcome) => ({
  rowCount: o.rows, truncated: o.truncatedBy !== null, truncatedBy: o.truncatedBy, limit: o.limit, elapsedMs: o.elapsedMs, ...(o.plan ? { plan: o.plan } : {}),
});

/** {columns, rows, …summary} as JSON, held as bytes until the query has ended (an error is then still a problem). */
export async function answerJson(ctx: Context, run: Run): Promise<void> {
  const bytes = new AnswerBytes();
  let first = true;
  const outcome = await run({
    maxBytes: cypherLimits.maxBufferedAnswerBytes,
    columns: (keys) => bytes.append(`{"columns":${JSON.stringify(keys)},"rows":[`),
    row: (values) => {
      bytes.append(first ? JSON.stringify(values) : `,${JSON.stringify(values)}`);
      first = false;
      return true;
    },
  });
  bytes.append(`],${JSON.stringify(summaryOf(outcome)).slice(1)}`);
  ctx.type = 'application/json';
  ctx.body = bytes.take();
}

/** CSV with a header row, held as bytes like JSON; the count and the truncation go in headers. */
export async function answerCsv(ctx: Context, run: Run): Promise<void> {
  const bytes = new AnswerBytes();
  const outcome = await run({
    maxBytes: cypherLimits.maxBufferedAnswerBytes,
    columns: (keys) => bytes.append(csvRecord(keys)),
    row: (values) => {
      bytes.append(csvRecord(values));
      return true;
    },
  });
  csvHeaders(ctx, outcome.rows, outcome);
  ctx.body = bytes.take();
}

/**
 * Text gathered into Buffers of a modest size and joined once at the end, so an answer is never one string as
 * well as its bytes.
 */
class AnswerBytes {
  private static readonly chunkChars = 64 * 1024;
  private chunks: Buffer[] = [];
  private pending: string[] = [];
  private pendingChars = 0;

  append(text: string): void {
    this.pending.push(text);
    this.pendingChars += text.length;
    if (this.pendingChars >= AnswerBytes.chunkChars) this.flush();
  }

  take(): Buffer {
    this.flush();
    const whole = Buffer.concat(this.chunks);
    this.chunks = [];
    return whole;
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    this.chunks.push(Buffer.from(this.pending.join(''), 'utf8'));
    this.pending = [];
    this.pendingChars = 0;
  }
}

/** The problem body of an error that happens after a stream began (its status line is long gone). */
function problemLine(err: unknown): string {
  return `${JSON.stringify({ error: problemFields(knownProblem(err) ?? internalProblem()) })}\n`;
}

/**
 * NDJSON: the answer begins with the first row (or the end), so an error before it (a refusal, a syntax error,
 * a timeout before any row) is still a problem with its status. Rows are written as the client reads them: a
 * full socket holds the pull from Neo4j, and a client that goes away stops the query.
 */
export async function streamNdjson(ctx: Context, run: Run): Promise<void> {
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
    maxBytes: cypherLimits.maxStreamedAnswerBytes,
    columns: (keys) => write(`${JSON.stringify({ columns: keys })}\n`),
    row: async (values) => {
      if (gone) return false;
      begun = true;
      begin();
      if (!out.write(`${JSON.stringify(values)}\n`)) {
        // Whichever comes first, the other listener goes too: a long stream waits for many drains.
        await new Promise<void>((resolve) => {
          const done = () => {
            out.off('drain', done);
            out.off('close', done);
            resolve();
          };
          out.once('drain', done);
          out.once('close', done);
        });
      }
      return !gone;
    },
  };
  const finished = run(sink).then(
    (outcome) => {
      if (!gone && !out.destroyed) out.end(`${JSON.stringify(summaryOf(outcome))}\n`);
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
