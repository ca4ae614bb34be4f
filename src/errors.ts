/**
 * The closed set of error codes the API answers with, and the one error type that carries them.
 * Services throw `new AppError('code', 'detail')`; src/http/error-handler.ts renders it as problem+json.
 */
export const errorCodes = {
  invalid_request: { status: 400, title: 'Invalid request' },
  invalid_cypher: { status: 400, title: 'Invalid Cypher' },
  unauthorized: { status: 401, title: 'Unauthorized' },
  insufficient_role: { status: 403, title: 'Insufficient role' },
  user_key_required: { status: 403, title: 'User key required' },
  forbidden: { status: 403, title: 'Forbidden' },
  query_refused: { status: 403, title: 'Query refused' },
  not_found: { status: 404, title: 'Not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  not_acceptable: { status: 406, title: 'Not acceptable' },
  version_not_draft: { status: 409, title: 'Version is not a draft' },
  slug_taken: { status: 409, title: 'Slug already taken' },
  duplicate_link: { status: 409, title: 'Link already exists' },
  already_member: { status: 409, title: 'Already a member' },
  email_taken: { status: 409, title: 'Email already registered' },
  last_owner: { status: 409, title: 'Last owner' },
  key_not_active: { status: 409, title: 'Key is revoked or expired' },
  key_already_rotated: { status: 409, title: 'Key already rotated' },
  conflict: { status: 409, title: 'Conflict' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  idempotency_key_reused: { status: 422, title: 'Idempotency key reused' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  request_header_fields_too_large: { status: 431, title: 'Request header fields too large' },
  query_timeout: { status: 422, title: 'Query timed out' },
  query_memory_exceeded: { status: 422, title: 'Query memory limit reached' },
  quota_exceeded: { status: 429, title: 'Monthly retrieval quota exceeded' },
  rate_limited: { status: 429, title: 'Too many requests' },
  internal_error: { status: 500, title: 'Internal server error' },
  service_unavailable: { status: 503, title: 'Service unavailable' },
} as const;

export type ErrorCode = keyof typeof errorCodes;

/** One invalid field: a JSON pointer into the part of the request it names, and what is wrong. */
export interface FieldError {
  path: string;
  message: string;
  in?: 'body' | 'query' | 'path' | 'header';
}

export class AppError extends Error {
  readonly status: number;
  readonly title: string;
  readonly errors?: FieldError[];
  readonly headers: Record<string, string>;
  /** Extra members of the problem body (RFC 9457 extensions), e.g. a Cypher syntax error's position. */
  readonly extensions?: Record<string, unknown>;

  constructor(
    readonly code: ErrorCode,
    detail?: string,
    options: { errors?: FieldError[]; headers?: Record<string, string>; cause?: unknown; extensions?: Record<string, unknown> } = {},
  ) {
    super(detail ?? errorCodes[code].title, { cause: options.cause });
    this.status = errorCodes[code].status;
    this.title = errorCodes[code].title;
    this.errors = options.errors;
    this.headers = options.headers ?? {};
    this.extensions = options.extensions;
  }
}

/** A 400 about a single field. */
export function invalidField(path: string, message: string, where: FieldError['in'] = 'body'): AppError {
  return new AppError('invalid_request', `${path.slice(1) || 'request'} ${message}`, {
    errors: [{ path, message, in: where }],
  });
}

export const notFound = (what: string) => new AppError('not_found', `${what} not found`);
