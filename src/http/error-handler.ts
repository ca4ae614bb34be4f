import { STATUS_CODES, type Server } from 'node:http';
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import { isRedisUnavailable, redisUnavailable } from '../infra/redis.js';
import { AppError } from '../errors.js';

export const problemContentType = 'application/problem+json';

function toAppError(err: unknown): AppError | undefined {
  if (err instanceof AppError) return err;
  // Neo4j errors arrive translated already (GraphExecutor is the one place that maps them); an unreachable
  // Redis met outside the gate is recognised here.
  if (isRedisUnavailable(err)) return redisUnavailable(err);
  return undefined;
}

/** The RFC 9457 document of a problem. */
function problemDocument(problem: AppError, instance: string) {
  return {
    ...problem.extensions,
    type: `https://playbooks.dev/problems/${problem.code.replace(/_/g, '-')}`,
    title: problem.title,
    status: problem.status,
    detail: problem.message,
    code: problem.code,
    instance,
    ...(problem.errors ? { errors: problem.errors } : {}),
  };
}

/**
 * Requests that Node's HTTP parser refuses before Koa sees them (a request line or headers over the size limit,
 * a malformed request) are answered as problems too, where the socket still takes an answer.
 */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (err: Error & { code?: string }, socket) => {
    if (!socket.writable || err.code === 'ECONNRESET') return void socket.destroy();
    const problem =
      err.code === 'HPE_HEADER_OVERFLOW'
        ? new AppError('request_header_fields_too_large', 'The request line and headers are larger than the server accepts (16 KiB)')
        : new AppError('invalid_request', 'The request is not well-formed HTTP');
    const body = JSON.stringify(problemDocument(problem, '/'));
    socket.end(
      `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}\r\nContent-Type: ${problemContentType}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
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
      ctx.body = problemDocument(problem, ctx.path);
    }
  };
}
