import { setTimeout as sleep } from 'node:timers/promises';
import neo4j, { type BookmarkManager, type Driver, type ManagedTransaction, type Transaction, isRetryableError, routing } from 'neo4j-driver';
import { AppError } from '../errors.js';
import type { QueryCatalog } from './cypher-files.js';
import { retryBudgetMs } from './neo4j-driver.js';
import { translate } from './neo4j-errors.js';
import { noteWrite, readScope } from './read-scope.js';

// The executor is what repositories import; the driver's settings and the error translation are its parts.

export type Params = Record<string, unknown>;
export type Row = Record<string, any>;

/** Runs named statements inside one open transaction (see GraphExecutor.writeTx / readTx). */
export interface GraphTx {
  run<T extends Row = Row>(name: string, params?: Params): Promise<T[]>;
  /**
   * A statement whose rows nobody reads (an audit event): sent at once without waiting for its answer, so it
   * travels to Neo4j with the transaction's next statement instead of costing a round trip of its own while
   * the workspace's lock is held. Its failure fails the transaction: the transaction awaits it before it commits.
   */
  send(name: string, params?: Params): void;
  /** A statement's rows as they arrive, pulled as the caller takes them (the driver's fetch size bounds memory). */
  stream<T extends Row = Row>(name: string, params?: Params): AsyncIterable<T>;
}

async function* rowsOf<T extends Row>(result: AsyncIterable<{ toObject(): unknown }>): AsyncIterable<T> {
  for await (const record of result) yield record.toObject() as T;
}

/**
 * Thrown by the work of a writeTx to end its transaction without committing anything (a dry run, or a batch that
 * turned out to change nothing), carrying the answer; the caller of writeTx catches it. Not a failure.
 */
export class Rollback<R> extends Error {
  constructor(readonly result: R) {
    super('rolled back on purpose');
  }
}

/**
 * Owns sessions and transactions: every statement is run by name from the catalog, with parameters,
 * against the configured database. Repositories are its only callers.
 */
export class GraphExecutor {
  /** Counts failed Neo4j calls, exported as a metric. */
  errorCount = 0;

  /**
   * readTimeoutMs: how long a read may wait before it is a 503. While the database is unreachable or restarting,
   * the driver's connection attempts and retries could otherwise hold a request several times longer.
   */
  constructor(
    readonly driver: Driver,
    readonly database: string,
    private readonly queries: QueryCatalog,
    private readonly options: { readTimeoutMs?: number } = {},
  ) {}

  text(name: string): string {
    return this.queries.get(name);
  }

  /**
   * One read-only statement as an auto-commit transaction, retried here on retryable errors (a read is safe to
   * repeat): RUN and PULL travel together where executeQuery's managed transaction adds BEGIN and COMMIT, a
   * round trip on every uncached bundle (the bench's uncached bundle against its raw-driver floor shows it). The
   * session shares executeQuery's bookmark manager, so a read sees every write this process committed before
   * it, on a cluster too. Past readTimeoutMs the read is a 503, whatever a retry would still try.
   */
  async read<T extends Row = Row>(name: string, params: Params = {}): Promise<T[]> {
    const text = this.queries.toSend(name);
    const timeoutMs = this.options.readTimeoutMs ?? 30_000;
    const started = Date.now();
    const attempts = async (): Promise<T[]> => {
      for (let delayMs = 100; ; delayMs *= 2) {
        const session = this.driver.session({ database: this.database, defaultAccessMode: neo4j.session.READ, ...this.causalChain() });
        try {
          const result = await session.run(text, params);
          await session.close();
          return result.records.map((r) => r.toObject() as T);
        } catch (err) {
          // A session stuck on an unreachable database is closed without waiting for it.
          void session.close().catch(() => undefined);
          if (!isRetryableError(err as Error) || Date.now() + delayMs > started + Math.min(retryBudgetMs, timeoutMs)) throw err;
        }
        await sleep(delayMs);
      }
    };
    return this.guard(async () => {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(Object.assign(new Error(`Neo4j did not answer within ${timeoutMs} ms`), { name: 'TimeoutError' })), timeoutMs);
      });
      try {
        return await Promise.race([attempts(), deadline]);
      } finally {
        clearTimeout(timer);
      }
    });
  }

  async write<T extends Row = Row>(name: string, params: Params = {}): Promise<T[]> {
    const text = this.queries.toSend(name);
    return this.guard(async () => {
      const result = await this.driver.executeQuery(text, params, { database: this.database, routing: routing.WRITE });
      noteWrite();
      return result.records.map((r) => r.toObject() as T);
    });
  }

  /** This process's latest bookmarks: every write it committed (what other processes' reads start with). */
  latestBookmarks(): Promise<string[]> {
    return Promise.resolve(this.driver.executeQueryBookmarkManager.getBookmarks()).then((b) => [...b]);
  }

  /**
   * Sessions follow this process's own writes (executeQuery's bookmark manager) and, inside a request, the
   * workspace's latest writes through any process (the request's read scope): on a Neo4j cluster a read
   * routed to a secondary waits until that secondary has them.
   */
  private causalChain(): { bookmarkManager: BookmarkManager; bookmarks?: string[] } {
    const scope = readScope();
    return { bookmarkManager: this.driver.executeQueryBookmarkManager, ...(scope?.bookmarks.length ? { bookmarks: scope.bookmarks } : {}) };
  }

  /** Several statements in one write transaction, retried as a whole on transient errors. */
  async writeTx<R>(work: (tx: GraphTx) => Promise<R>): Promise<R> {
    const result = await this.inSession('WRITE', (s) => s.executeWrite((tx) => this.inTx(tx, work)));
    noteWrite();
    return result;
  }

  async readTx<R>(work: (tx: GraphTx) => Promise<R>): Promise<R> {
    return this.inSession('READ', (s) => s.executeRead((tx) => this.inTx(tx, work)));
  }

  /** Runs raw text; only for migrations, whose statements come from cypher/migrations. */
  async runMigrationStatement(text: string, params: Params = {}): Promise<Row[]> {
    return this.guard(async () => {
      const result = await this.driver.executeQuery(text, params, { database: this.database });
      return result.records.map((r) => r.toObject());
    });
  }

  async ping(): Promise<void> {
    await this.guard(() => this.driver.executeQuery('RETURN 1', {}, { database: this.database }));
  }

  /**
   * What `work` yields from reads in one read transaction, as it is yielded: for output that leaves while it is
   * read (a streamed export). Never retried, since what has left cannot be taken back; the transaction and its
   * session close when the consumer stops, early or not.
   */
  async *readStream<T>(work: (tx: GraphTx) => AsyncIterable<T>): AsyncGenerator<T> {
    const session = this.driver.session({ database: this.database, defaultAccessMode: neo4j.session.READ, ...this.causalChain() });
    let tx: Transaction | undefined;
    try {
      tx = await session.beginTransaction();
      yield* work(this.txOf(tx, []));
    } catch (err) {
      if (!(err instanceof AppError)) this.errorCount += 1;
      throw translate(err);
    } finally {
      await tx?.rollback().catch(() => undefined);
      await session.close().catch(() => undefined);
    }
  }

  /** Runs `work` on the transaction, then waits for the statements it sent unanswered, so that commit follows them. */
  private async inTx<R>(tx: ManagedTransaction, work: (tx: GraphTx) => Promise<R>): Promise<R> {
    const sent: Promise<void>[] = [];
    const result = await work(this.txOf(tx, sent));
    await Promise.all(sent);
    return result;
  }

  /** The named-statement view of a driver transaction; what `send` sends is added to `sent`. */
  private txOf(tx: ManagedTransaction | Transaction, sent: Promise<void>[]): GraphTx {
    return {
      run: async <T extends Row>(name: string, params: Params = {}) => {
        const answer = await tx.run(this.queries.toSend(name), params);
        return answer.records.map((r) => r.toObject() as T);
      },
      send: (name: string, params: Params = {}) => {
        const done = Promise.resolve(tx.run(this.queries.toSend(name), params)).then(() => undefined);
        // inTx awaits it before commit; when the work throws first, the transaction rolls back and this no longer matters.
        done.catch(() => undefined);
        sent.push(done);
      },
      stream: <T extends Row>(name: string, params: Params = {}) => rowsOf<T>(tx.run(this.queries.toSend(name), params)),
    };
  }

  private async inSession<R>(mode: 'READ' | 'WRITE', work: (s: ReturnType<Driver['session']>) => Promise<R>): Promise<R> {
    return this.guard(async () => {
      const session = this.driver.session({ database: this.database, defaultAccessMode: mode, ...this.causalChain() });
      try {
        return await work(session);
      } finally {
        await session.close();
      }
    });
  }

  private async guard<R>(work: () => Promise<R>): Promise<R> {
    try {
      return await work();
    } catch (err) {
      if (!(err instanceof AppError) && !(err instanceof Rollback)) this.errorCount += 1;
      throw translate(err);
    }
  }
}
