import { STATUS_CODES, type Server } from 'node:http';
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import { AppError } from '../errors.js';
import { problemFields, problemFor } from '../problems.js';

export const problemContentType = 'application/problem+json';

/** The RFC 9457 document of a problem. */
const problemDocument = (problem: AppError, instance: string) => ({ ...problemFields(problem), instance });

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
 * The one place that renders a REST route's errors: every failure leaves as RFC 9457 problem+json, answered as
 * src/problems.ts maps it (an unexpected one logged with the request id, answered with a bare 500).
 */
export function errorHandler(logger: Logger) {
  return async function renderProblems(ctx: Context, next: Next): Promise<void> {
    try {
      await next();
    } catch (err) {
      const problem = problemFor(err, logger, { requestId: ctx.state.requestId, method: ctx.method, route: ctx.state.route });
      ctx.status = problem.status;
      for (const [name, value] of Object.entries(problem.headers)) ctx.set(name, value);
      ctx.type = problemContentType;
      ctx.body = problemDocument(problem, ctx.path);
    }
  };
}
