import type { Logger } from 'pino';
import { AppError } from './errors.js';
import { isRedisUnavailable, redisUnavailable } from './infra/redis.js';

/**
 * How a failure becomes an answer, for every face of an operation alike: the REST route's problem+json
 * (src/http/error-handler.ts), the MCP tool's error result and the MCP JSON-RPC error (src/mcp/errors.ts), a
 * problem line at the end of a stream (src/analyst/answer-formats.ts).
 */

/**
 * The AppError a failure is answered with, when it is one the service knows: an AppError as it is (Neo4j's errors
 * arrive translated already: GraphExecutor is the one place that maps them), an unreachable Redis as the service's
 * 503. Undefined for anything else, which is a bug.
 */
export function knownProblem(err: unknown): AppError | undefined {
  if (err instanceof AppError) return err;
  if (isRedisUnavailable(err)) return redisUnavailable(err);
  return undefined;
}

/** What an unexpected failure is answered with: a bare 500 that says nothing of it. */
export const internalProblem = () => new AppError('internal_error', 'An unexpected error occurred');

/**
 * The AppError to answer for any failure. An unexpected one is logged with `context` (the request id and route, the
 * tool) and answered as a bare 500; a known one of the 5xx kind (a dependency away) is logged as a warning.
 */
export function problemFor(err: unknown, logger: Logger, context: Record<string, unknown>): AppError {
  const problem = knownProblem(err);
  if (!problem) {
    logger.error({ err, ...context }, 'unhandled error');
    return internalProblem();
  }
  if (problem.status >= 500) logger.warn({ err, ...context }, problem.message);
  return problem;
}

/** The members of a problem's RFC 9457 document (less its instance), its code and field errors among them. */
export function problemFields(problem: AppError) {
  return {
    ...problem.extensions,
    type: `https://playbooks.dev/problems/${problem.code.replace(/_/g, '-')}`,
    title: problem.title,
    status: problem.status,
    detail: problem.message,
    code: problem.code,
    ...(problem.errors ? { errors: problem.errors } : {}),
  };
}
