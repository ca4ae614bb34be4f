import { Neo4jError } from 'neo4j-driver';
import { AppError } from '../errors.js';

const unavailableCodes = new Set(['ServiceUnavailable', 'SessionExpired']);

export function isConstraintViolation(err: unknown): boolean {
  const cause = err instanceof AppError ? err.cause : err;
  return cause instanceof Neo4jError && cause.code === 'Neo.ClientError.Schema.ConstraintValidationFailed';
}

export function isNeo4jUnavailable(err: unknown): boolean {
  return err instanceof Neo4jError && (unavailableCodes.has(err.code) || /connect|ECONNREFUSED/i.test(err.message));
}

/** The one place where Neo4j errors become the service's own. */
export function translate(err: unknown): unknown {
  if (err instanceof AppError) return err;
  if (isNeo4jUnavailable(err) || (err instanceof Error && err.name === 'TimeoutError')) {
    return new AppError('service_unavailable', 'The graph database cannot be reached', {
      headers: { 'Retry-After': '5' },
      cause: err,
    });
  }
  if (isConstraintViolation(err)) return new AppError('conflict', 'The change conflicts with existing data', { cause: err });
  // Neo4j refusing a transaction for its memory or its timeout is the database's limit, to be answered as such.
  if (err instanceof Neo4jError && /OutOfMemoryError|MemoryLimit|TransactionTimedOut/.test(err.code)) {
    return new AppError('service_unavailable', 'The graph database refused the transaction (its memory or time limit)', { headers: { 'Retry-After': '5' }, cause: err });
  }
  // Any other transient error (a deadlock between two writes, a lock wait ended) that outlasted the driver's
  // retries: the request changed nothing and may be sent again, as a 503 says; it is not the service's fault (500).
  if (err instanceof Neo4jError && err.code.startsWith('Neo.TransientError.')) {
    return new AppError('service_unavailable', 'A concurrent change held what this one needed: nothing was changed, send it again', { headers: { 'Retry-After': '1' }, cause: err });
  }
  return err;
}

/** `line 1, column 8 (offset: 7)` as Neo4j writes it in its messages. */
function positionOf(err: Neo4jError): { line: number; column: number; offset: number } | undefined {
  const fromRecord = (err.diagnosticRecord as { _position?: { line: number; column: number; offset: number } } | undefined)?._position;
  if (fromRecord && typeof fromRecord.line === 'number') return { line: Number(fromRecord.line), column: Number(fromRecord.column), offset: Number(fromRecord.offset) };
  const m = /line (\d+), column (\d+) \(offset: (\d+)\)/.exec(err.message);
  return m ? { line: Number(m[1]), column: Number(m[2]), offset: Number(m[3]) } : undefined;
}

const administrationCodes = /^Neo\.ClientError\.(Statement\.(NotSystemDatabaseError|UnsupportedAdministrationCommand)|Security\.)/;

/**
 * Neo4j's errors for text an analyst wrote: what was wrong with the text is theirs to fix (4xx), never a 5xx.
 * A timeout and the per-transaction memory cap are 422, each with its own code. Shared with the analysts' query
 * worker (src/analyst/query-worker.ts), which runs such text on a driver of its own.
 */
export function translateUntrusted(err: unknown): unknown {
  if (err instanceof AppError || !(err instanceof Neo4jError)) return translate(err);
  const { code, message } = err;
  if (/TransactionTimedOut/.test(code)) {
    return new AppError('query_timeout', 'The query did not finish within its timeout and was stopped', { cause: err });
  }
  if (/OutOfMemoryError|MemoryLimit/.test(code) || /memory\.transaction/.test(message)) {
    return new AppError('query_memory_exceeded', `The query needed more memory than a transaction may use: ${message}`, { cause: err });
  }
  if (administrationCodes.test(code)) {
    return new AppError('query_refused', `Administration commands are not allowed: ${message}`, { cause: err });
  }
  if (/Terminated|LockClientStopped/.test(code)) {
    return new AppError('query_timeout', 'The query was stopped before it finished (its timeout, or the operator)', { cause: err });
  }
  if (code.startsWith('Neo.ClientError.')) {
    const position = positionOf(err);
    return new AppError('invalid_cypher', message, {
      cause: err,
      errors: [{ path: '/query', message: message.split('\n')[0], in: 'body' }],
      extensions: { neo4jCode: code, ...(position ? { position } : {}) },
    });
  }
  const translated = translate(err);
  if (translated !== err) return translated;
  if (code.startsWith('Neo.TransientError.')) {
    return new AppError('service_unavailable', `Neo4j could not run the query just now: ${message}`, { headers: { 'Retry-After': '5' }, cause: err });
  }
  return err;
}
