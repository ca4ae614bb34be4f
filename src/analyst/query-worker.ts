/**
 * One analyst query, in a process of its own (repository.ts forks it). Bolt delivers a record whole and the driver
 * decodes it in one go, however large its values: here that costs this process's time and memory, all of it handed
 * back to the system when it ends, and its heap is capped, instead of the API's event loop and memory.
 *
 * Everything happens in one READ-mode transaction with the caller's timeout, which is rolled back, never committed:
 * EXPLAIN first, refused unless its query type is 'r' and every operator and procedure of its plan is allowed
 * (plan-check.ts); then the query itself, its records pulled as the API takes the rows and the pull stopped at
 * `limit`, at a value past `maxValueBytes` or at a row past `maxBytes`. Then the driver is closed and the process
 * ends. A statement the analyst began with EXPLAIN ends at the check, with its plan; one begun with PROFILE runs
 * to its end, rows past a bound pulled and dropped, since Neo4j gives a profile only of a result read whole.
 */
import neo4j, { type Driver, type Record as Neo4jRecord, type Transaction } from 'neo4j-driver';
import { AppError } from '../errors.js';
import { createUntrustedDriver } from '../infra/neo4j-driver.js';
import { translateUntrusted } from '../infra/neo4j-errors.js';
import { type PlanNode, refusal } from './plan-check.js';
import { type ApiMessage, type QueryRequest, type TruncationReason, type WorkerMessage, errorData, queryProcessArg } from './query-protocol.js';
import type { PlanOperator } from './schemas.js';
import { type Statement, asTyped, operatorsOf, statementOf, withModeExplained } from './statement.js';
import { fromJson, toJsonWithin } from './values.js';

/**
 * The driver decodes every record of a batch it has asked for, whatever happens to the first; a small batch keeps
 * what one query can hold in the driver to a few records, while larger batches barely speed up small rows.
 */
const fetchSize = 10;

/** Past this many bytes of rows gathered while the previous batch is on its way, the pull waits for its ack. */
const batchBytes = 64 * 1024;

/**
 * Text someone outside the project wrote, in one READ-mode explicit transaction with the given timeout, never
 * retried and never committed; Neo4j's errors become the analyst's (translateUntrusted).
 */
export async function inReadTransaction<R>(
  driver: Driver,
  database: string,
  options: { timeoutMs: number; metadata?: Record<string, unknown>; fetchSize?: number },
  work: (tx: Transaction) => Promise<R>,
): Promise<R> {
  const session = driver.session({ database, defaultAccessMode: neo4j.session.READ, fetchSize: options.fetchSize });
  let tx: Transaction | undefined;
  try {
    tx = await session.beginTransaction({ timeout: options.timeoutMs, metadata: options.metadata });
    return await work(tx);
  } catch (err) {
    throw translateUntrusted(err);
  } finally {
    if (tx?.isOpen()) await tx.rollback().catch(() => undefined);
    await session.close().catch(() => undefined);
  }
}

/**
 * Rows on their way to the API, one batch at a time: a row goes at once when nothing is awaiting its ack, and rows
 * arriving meanwhile gather into the next batch, so a slow receiver holds the pull from Neo4j.
 */
class Outbox {
  private rows: unknown[][] = [];
  private bytes = 0;
  private inFlight = false;
  private acked: (() => void) | undefined;

  /** The API has taken the batch in flight. */
  ack(): void {
    this.inFlight = false;
    this.acked?.();
  }

  async add(values: unknown[], bytes: number): Promise<void> {
    this.rows.push(values);
    this.bytes += bytes;
    if (!this.inFlight || this.bytes >= batchBytes) await this.flush();
  }

  /** Sends what has gathered once the batch before it was taken. */
  async flush(): Promise<void> {
    if (this.inFlight) await new Promise<void>((resolve) => (this.acked = resolve));
    if (this.rows.length === 0) return;
    send({ kind: 'rows', rows: this.rows });
    this.inFlight = true;
    this.rows = [];
    this.bytes = 0;
  }
}

const send = (message: WorkerMessage, then?: () => void) => process.send!(message, undefined, undefined, then);

/** How the query ended: why its rows were cut, if they were, and its plan when the analyst asked for it. */
type Ending = { cut: TruncationReason | null; plan?: PlanOperator[] };

/** The plan check: the statement's EXPLAIN, refused unless allowed; its errors told in the analyst's positions. */
async function checked(tx: Transaction, statement: Statement, params: Record<string, unknown>) {
  try {
    const explained = tx.run(statement.check, params);
    const keys = (await explained.keys()) as string[];
    const { queryType, plan } = (await explained).summary;
    const reason = refusal(queryType, plan ? (plan as unknown as PlanNode) : undefined);
    if (reason) throw new AppError('query_refused', reason);
    return { keys, plan: plan ? operatorsOf(plan, false) : [] };
  } catch (err) {
    throw asTyped(translateUntrusted(err), statement.text);
  }
}

async function run(driver: Driver, request: QueryRequest, outbox: Outbox): Promise<Ending> {
  const { options } = request;
  const statement = statementOf(request.text);
  const params = fromJson(request.params) as Record<string, unknown>;
  const txOptions = { timeoutMs: options.timeoutMs, metadata: options.metadata, fetchSize: Math.min(options.limit + 1, fetchSize) };
  const ran = inReadTransaction(driver, request.neo4j.database, txOptions, async (tx): Promise<Ending> => {
    const check = await checked(tx, statement, params);
    if (statement.mode === 'explain') {
      send({ kind: 'columns', keys: check.keys });
      return { cut: null, plan: check.plan };
    }
    const result = tx.run(statement.text, params);
    const keys = (await result.keys()) as string[];
    send({ kind: 'columns', keys });
    const profiled = statement.mode === 'profile';
    let rows = 0;
    let bytes = 0;
    let cut: TruncationReason | null = null;
    // One record past the limit tells a cut answer from one that ended there. Leaving the loop discards the rest
    // of the stream, and the transaction is rolled back; the rows gathered so far still go, even before an error.
    // A profile is read to its end, its rows past the cut dropped unconverted.
    try {
      for await (const record of result) {
        if (cut) continue;
        if (rows === options.limit) cut = 'rows';
        const row = cut ? undefined : rowWithin(record, keys, options.maxValueBytes, request.maxBytes - bytes);
        if (!row) cut ??= 'bytes';
        else {
          rows += 1;
          bytes += row.bytes;
          await outbox.add(row.values, row.bytes);
        }
        if (cut && !profiled) break;
      }
    } finally {
      await outbox.flush();
    }
    if (!profiled) return { cut };
    const { profile } = await result.summary();
    return { cut, plan: profile ? operatorsOf(profile, true) : [] };
  });
  return ran.catch((err) => {
    throw withModeExplained(err);
  });
}

/**
 * A record's values as JSON with the bytes they take as one row of an answer (brackets and separators counted),
 * or undefined when a value passes `maxValueBytes` or the row passes `budget`.
 */
function rowWithin(record: Neo4jRecord, keys: string[], maxValueBytes: number, budget: number): { values: unknown[]; bytes: number } | undefined {
  let bytes = 2 + keys.length;
  if (bytes > budget) return undefined;
  const values: unknown[] = [];
  for (const key of keys) {
    const value = toJsonWithin(record.get(key), Math.min(maxValueBytes, budget - bytes));
    if (!value) return undefined;
    values.push(value.json);
    bytes += value.bytes;
  }
  return { values, bytes };
}

/** The process's whole life: the query on a driver of its own, then the driver closed, then how it ended. */
async function answer(request: QueryRequest, outbox: Outbox): Promise<void> {
  const driver = createUntrustedDriver(request.neo4j, 1);
  let outcome: WorkerMessage;
  try {
    outcome = { kind: 'end', ...(await run(driver, request, outbox)) };
  } catch (err) {
    outcome = { kind: 'error', error: errorData(err) };
  }
  await driver.close().catch(() => undefined);
  send(outcome, () => process.disconnect());
}

if (process.argv.includes(queryProcessArg) && process.send) {
  const outbox = new Outbox();
  process.on('message', (message: ApiMessage) => {
    if (message.kind === 'query') void answer(message.request, outbox);
    else outbox.ack();
  });
  // The API went away, or stopped listening: nobody is left to answer.
  process.once('disconnect', () => process.exit());
}
