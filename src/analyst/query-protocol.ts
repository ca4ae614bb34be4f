/**
 * What the API and an analyst query's own process (query-worker.ts, forked by repository.ts) tell each other over
 * its IPC channel. The API sends the query; the process sends the columns, then the rows in batches, each
 * acknowledged before it sends the next, then how the rows ended or the error. Only plain data crosses: an error
 * travels as its code and details and becomes an AppError again in the API.
 */
import { AppError, type ErrorCode, type FieldError } from '../errors.js';
import type { Neo4jSettings } from '../infra/neo4j-driver.js';
import type { PlanOperator } from './schemas.js';

/** Why an answer holds fewer rows than its query had: the row limit, or a bound in bytes. */
export type TruncationReason = 'rows' | 'bytes';

export interface RunOptions {
  limit: number;
  /** One value of a row, measured as JSON; a larger one ends the rows before its row. */
  maxValueBytes: number;
  timeoutMs: number;
  /** Shown by SHOW TRANSACTIONS, so an operator can tell an analyst's query from the API's. */
  metadata: Record<string, unknown>;
}

/** A query process's whole task. */
export interface QueryRequest {
  neo4j: Neo4jSettings;
  text: string;
  /** As the caller sent them (JSON); the query process makes them Neo4j values. */
  params: Record<string, unknown>;
  options: RunOptions;
  /** The most bytes of rows, measured as JSON, the answer takes; the rows end before one that would pass it. */
  maxBytes: number;
}

/** An AppError as data; without a code, an unexpected error, with its stack for the log. */
export interface ErrorData {
  code?: ErrorCode;
  detail: string;
  errors?: FieldError[];
  extensions?: Record<string, unknown>;
  headers?: Record<string, string>;
  /** The underlying error's message (a Neo4j code and text), for the log. */
  cause?: string;
  stack?: string;
}

/** The argument a query process is started with: the module runs a query only when it is there. */
export const queryProcessArg = '--analyst-query';

/** From the API: the query, then an ack for each batch of rows the answer has taken. */
export type ApiMessage = { kind: 'query'; request: QueryRequest } | { kind: 'ack' };

/** From the query process. */
export type WorkerMessage =
  | { kind: 'columns'; keys: string[] }
  | { kind: 'rows'; rows: unknown[][] }
  /** Sent after the transaction and the process's driver are closed; the plan for EXPLAIN and PROFILE. */
  | { kind: 'end'; cut: TruncationReason | null; plan?: PlanOperator[] }
  | { kind: 'error'; error: ErrorData };

/** An error as it crosses to the API: an AppError whole, anything else as its message and stack. */
export function errorData(err: unknown): ErrorData {
  if (err instanceof AppError) {
    const cause = err.cause instanceof Error ? `${(err.cause as { code?: string }).code ?? err.cause.name}: ${err.cause.message}` : undefined;
    return { code: err.code, detail: err.message, errors: err.errors, extensions: err.extensions, headers: err.headers, cause };
  }
  const error = err instanceof Error ? err : new Error(String(err));
  return { detail: error.message, stack: error.stack };
}

/** The error again on the API's side: the same AppError, or a plain Error that the API logs and answers with a 500. */
export function errorFromData(data: ErrorData): Error {
  if (!data.code) return Object.assign(new Error(data.detail), { stack: data.stack });
  return new AppError(data.code, data.detail, {
    errors: data.errors,
    extensions: data.extensions,
    headers: data.headers,
    cause: data.cause === undefined ? undefined : new Error(data.cause),
  });
}
