import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import { isRedisUnavailable, redisUnavailable } from '../infra/redis.js';
import { AppError } from '../errors.js';

export const problemContentType = 'application/problem+json';

/** Errors thrown by Koa's own middleware (body parsing, router) carry an HTTP status; map them to codes. */
function fromHttpError(err: { status?: number; type?: string; message?: string }): AppError | undefined {
  switch (err.status) {
    case 400:
      return new AppError('invalid_request', err.type === 'entity.parse.failed' || /JSON/i.test(err.message ?? '') ? 'The request body is not valid JSON' : 'The request is malformed');
    case 413:
      return new AppError('payload_too_large', 'The request body is larger than 1 MiB');
    case 415:
      return new AppError('unsupported_media_type', 'The request body must be application/json');
    default:
      return undefined;
  }
}

function toAppError(err: unknown): AppError | undefined {
  if (err instanceof AppError) return err;
  // Neo4j errors arrive translated already (GraphExecutor is the one place that maps them); Redis calls are
  // spread over several components, so an unreachable Redis is recognised here.
  if (isRedisUnavailable(err)) return redisUnavailable(err);
  if (err && typeof err === 'object' && 'status' in err) return fromHttpError(err as { status: number });
  return undefined;
}

/**
 * The one place that renders errors: every failure leaves as RFC 9457 problem+json. Anything that is
 * not an AppError (or a known HTTP error) is a bug: logged with the request id, answered with a bare 500.
 */
export function errorHandler(logger: Logger) {
  return async function renderProblems(ctx: Context, next: Next): Promise<void> {
    try {
      await next();
    } catch (err) {
      let problem = toAppError(err);
      if (!problem) {
        logger.error({ err, requestId: ctx.state.requestId, method: ctx.method, route: ctx.state.route }, 'unhandled error');
        problem = new AppError('internal_error', 'An unexpected error occurred');
      } else if (problem.status >= 500) {
        logger.warn({ err, requestId: ctx.state.requestId }, problem.message);
      }
      ctx.status = problem.status;
      for (const [name, value] of Object.entries(problem.headers)) ctx.set(name, value);
      ctx.type = problemContentType;
      ctx.body = {
        ...problem.extensions,
        type: `https://playbooks.dev/problems/${problem.code.replace(/_/g, '-')}`,
        title: problem.title,
        status: problem.status,
        detail: problem.message,
        code: problem.code,
        instance: ctx.path,
        ...(problem.errors ? { errors: problem.errors } : {}),
      };
    }
  };
}
