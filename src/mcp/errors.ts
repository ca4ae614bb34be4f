import { type CallToolResult, ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { AppError } from '../errors.js';
import { problemFields, problemFor } from '../problems.js';

/**
 * How a failure reaches an MCP client. A tool's failure is a result with isError (the model reads it and may
 * correct its call); a resource's or prompt's is a JSON-RPC error (they have no isError). Either way it is the
 * problem a REST route answers for the same failure (src/problems.ts), and a refused quota says when it resets.
 */

/** JSON-RPC error code of a missing resource, as the MCP specification names it. */
export const resourceNotFound = -32002;
/** JSON-RPC error code (the implementation-defined server range) of a refused quota. */
export const quotaRefused = -32000;

/** What a problem adds for a refused quota: when the quota resets, as a moment and in seconds. */
function quotaDetails(err: AppError): { resetAt: string; retryAfter: number } | undefined {
  if (err.code !== 'quota_exceeded') return undefined;
  const retryAfter = Number(err.headers['Retry-After'] ?? 0);
  return { resetAt: new Date(Math.ceil(Date.now() / 1000 + retryAfter) * 1000).toISOString(), retryAfter };
}

/** The REST problem's members a client acts on (its code, detail and field errors), and when a refused quota resets. */
function problemOf(err: AppError) {
  const { code, detail, errors } = problemFields(err);
  return { code, detail, ...(errors ? { errors } : {}), ...quotaDetails(err) };
}

/** A tool error: the REST problem (code, detail, field errors, when the quota resets), as text. */
export function toolError(err: unknown, logger: Logger, tool: string): CallToolResult {
  const problem = problemOf(problemFor(err, logger, { tool }));
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(problem) }] };
}

/**
 * A JSON-RPC error as the SDK's protocol layer sends it (its code, message and data). Not the SDK's McpError,
 * whose message already starts with "MCP error <code>:", which a client then prefixes again.
 */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** A JSON-RPC error for a resource's or a prompt's failure: one line, the REST problem in its data. */
export function protocolError(failure: unknown, logger: Logger): RpcError {
  if (failure instanceof RpcError) return failure;
  const err = problemFor(failure, logger, {});
  const quota = quotaDetails(err);
  const code =
    err.code === 'not_found' ? resourceNotFound : quota ? quotaRefused : err.status >= 500 ? ErrorCode.InternalError : ErrorCode.InvalidParams;
  const message = quota ? `${err.message}; it resets at ${quota.resetAt}` : err.message;
  return new RpcError(code, message, problemOf(err));
}

export async function protocolErrors<T>(logger: Logger, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw protocolError(err, logger);
  }
}
