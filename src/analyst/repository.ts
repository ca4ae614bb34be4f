import { fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import type { GraphExecutor } from '../infra/neo4j.js';
import type { Neo4jSettings } from '../infra/neo4j-driver.js';
import { type ApiMessage, type QueryRequest, type RunOptions, type TruncationReason, type WorkerMessage, errorFromData, queryProcessArg } from './query-protocol.js';
import type { PlanOperator } from './schemas.js';

export type { RunOptions, TruncationReason } from './query-protocol.js';

/** Where rows go as they arrive: `row` resolves once the row is taken (backpressure); false stops the query. */
export interface RowSink {
  /** The most bytes of rows, measured as JSON, this receiver takes; the rows end before one that would pass it. */
  maxBytes: number;
  columns(keys: string[]): void;
  row(values: unknown[]): boolean | Promise<boolean>;
}

export interface RunResult {
  rows: number;
  /** Why the rows stopped before the query's last: a bound, or a receiver that stopped taking them; null if none. */
  cut: TruncationReason | 'receiver' | null;
  /** The plan of a statement begun with EXPLAIN, or the profile of one begun with PROFILE. */
  plan?: PlanOperator[];
}

/**
 * The heap of one query's process: what it holds is the driver, the records it has asked for and a batch of rows,
 * each value of which is bounded; a record too large for it ends that process, not the API.
 */
const queryHeapMb = 128;

/** The query's side as this module is run: its .ts source under tsx (the tests, `npm run cli`), else compiled .js. */
const workerFile = fileURLToPath(new URL(`./query-worker${path.extname(fileURLToPath(import.meta.url))}`, import.meta.url));

/** What is kept of a query process's stderr: enough to tell its heap running out from another failure. */
const stderrChars = 8 * 1024;

/**
 * The one exception to "Cypher only in cypher/queries": text an analyst wrote, run read-only, each query in a process
 * of its own (query-worker.ts) with its own driver and a capped heap. No record, however large, is decoded on the
 * API's event loop or kept in its memory, and what the query took goes back to the system when its process ends (a
 * worker thread's would stay with the API's allocator, and a thread running out of heap can abort the whole
 * process). Rows come back in batches and are handed to the sink one by one; each batch is acknowledged once the
 * sink has taken it, which holds the query's pull from Neo4j meanwhile.
 */
export class AnalystRepository {
  constructor(
    private readonly graph: GraphExecutor,
    private readonly config: Pick<Config, 'neo4j'>,
  ) {}

  /** Resolves once the query's process has ended, its driver closed. */
  run(text: string, params: Record<string, unknown>, options: RunOptions, sink: RowSink): Promise<RunResult> {
    const request: QueryRequest = { neo4j: this.neo4jSettings(), text, params, options, maxBytes: sink.maxBytes };
    const child = fork(workerFile, [queryProcessArg], {
      serialization: 'advanced',
      // The API's own flags (tsx's loader under tsx, V8's in production) but a debugger's, which would hold every
      // query at its start; then the cap, which the last one sets.
      execArgv: [...process.execArgv.filter((flag) => !flag.startsWith('--inspect')), `--max-old-space-size=${queryHeapMb}`],
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      if (stderr.length < stderrChars) stderr += chunk;
    });
    const tell = (message: ApiMessage) => {
      if (child.connected) child.send(message);
    };
    tell({ kind: 'query', request });

    let rows = 0;
    let outcome: { result: RunResult } | { error: unknown } | undefined;
    // A client that went away, like the query's end, ends the process at once; its connection closes with it.
    const settle = (o: NonNullable<typeof outcome>) => {
      outcome ??= o;
      child.kill();
    };
    const take = async (message: WorkerMessage) => {
      if (outcome) return;
      if (message.kind === 'columns') sink.columns(message.keys);
      else if (message.kind === 'rows') {
        for (const values of message.rows) {
          if (!(await sink.row(values))) return settle({ result: { rows, cut: 'receiver' } });
          rows += 1;
        }
        tell({ kind: 'ack' });
      } else if (message.kind === 'end') settle({ result: { rows, cut: message.cut, ...(message.plan ? { plan: message.plan } : {}) } });
      else settle({ error: errorFromData(message.error) });
    };
    let taken = Promise.resolve();
    child.on('message', (message: WorkerMessage) => {
      taken = taken.then(() => take(message)).catch((err) => settle({ error: err }));
    });
    let failure: Error | undefined;
    child.on('error', (err) => (failure ??= err));
    return new Promise((resolve, reject) => {
      child.once('close', async (code, signal) => {
        await taken;
        const ended = outcome ?? { error: silentEnd(stderr, failure, signal ?? `exit code ${code}`) };
        if ('result' in ended) return resolve(ended.result);
        if (!(ended.error instanceof AppError) || ended.error.status >= 500) this.graph.errorCount += 1;
        reject(ended.error);
      });
    });
  }

  /** The Neo4j the API uses (the runtime names the one it started itself when NEO4J_URI is not set). */
  private neo4jSettings(): Neo4jSettings {
    const { uri, username, password, database } = this.config.neo4j;
    if (!uri) throw new Error('The analysts’ queries need the URI of the Neo4j in use');
    return { uri, username, password, database };
  }
}

/** Why a query's process ended without telling how the query ended: its heap ran out, it could not start, or it crashed. */
function silentEnd(stderr: string, failure: Error | undefined, exit: string): Error {
  if (/heap out of memory/i.test(stderr)) {
    return new AppError('query_memory_exceeded', `A record of the query needed more memory than an analyst query may hold (a heap of ${queryHeapMb} MB)`);
  }
  return failure ?? new Error(`The analyst query's process ended (${exit}) without an answer: ${stderr}`);
}
