import { AppError } from '../errors.js';
import type { GraphExecutor } from '../infra/neo4j.js';
import { type PlanNode, refusal } from './plan-check.js';
import { fromJson, toJson } from './values.js';

/** Where rows go as they arrive: `row` resolves once the row is taken (backpressure); false stops the query. */
export interface RowSink {
  columns(keys: string[]): void;
  row(values: unknown[]): boolean | Promise<boolean>;
}

export interface RunOptions {
  limit: number;
  timeoutMs: number;
  /** Shown by SHOW TRANSACTIONS, so an operator can tell an analyst's query from the API's. */
  metadata: Record<string, unknown>;
}

/**
 * The one exception to "Cypher only in cypher/queries": text an analyst wrote, run read-only. Everything happens
 * in one READ-mode transaction with the caller's timeout (GraphExecutor.readUntrusted), which is rolled back,
 * never committed: EXPLAIN first, refused unless its query type is 'r' and every operator and procedure of its
 * plan is allowed (plan-check.ts); then the query itself, its records pulled as the sink takes them and the
 * pull stopped at `limit`.
 */
export class AnalystRepository {
  constructor(private readonly graph: GraphExecutor) {}

  async run(text: string, params: Record<string, unknown>, options: RunOptions, sink: RowSink): Promise<{ rows: number; truncated: boolean }> {
    const values = fromJson(params) as Record<string, unknown>;
    return this.graph.readUntrusted(
      async (tx) => {
        const explained = await tx.run(`EXPLAIN ${text}`, values);
        const { queryType, plan } = explained.summary;
        const reason = refusal(queryType, plan ? (plan as unknown as PlanNode) : undefined);
        if (reason) throw new AppError('query_refused', reason);

        const result = tx.run(text, values);
        const keys = (await result.keys()) as string[];
        sink.columns(keys);
        let rows = 0;
        // One record past the limit tells a cut answer from one that ended there; leaving the loop stops the pull.
        for await (const record of result) {
          if (rows === options.limit) return { rows, truncated: true };
          rows += 1;
          if (!(await sink.row(keys.map((k) => toJson(record.get(k)))))) return { rows, truncated: true };
        }
        return { rows, truncated: false };
      },
      { timeoutMs: options.timeoutMs, metadata: options.metadata, fetchSize: Math.min(options.limit + 1, 1000) },
    );
  }
}
