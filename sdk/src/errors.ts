/** One invalid field of a 400 answer: a JSON pointer into the part named by `in` (body, query, path). */
export interface ProblemField {
  path: string;
  message: string;
  in?: string;
}

export interface PlaybooksErrorInit {
  /** The HTTP status; 0 when no answer came (a timeout or a network failure). */
  status: number;
  /** The problem's stable snake_case code, e.g. `not_found`, `rate_limited`; `timeout` or `network_error` without an answer. */
  code: string;
  detail: string;
  errors?: ProblemField[];
  title?: string;
  type?: string;
  instance?: string;
  requestId?: string;
  /** Seconds the service asked to wait (Retry-After on 429 and 503). */
  retryAfter?: number;
  /** The problem's members beyond those above, e.g. the `position` of a Cypher syntax error. */
  extensions?: Record<string, unknown>;
}

/** The members every problem may have, kept in fields of their own. */
const problemMembers = new Set(['type', 'title', 'status', 'detail', 'instance', 'code', 'errors', 'requestId']);

/**
 * Everything the client throws, except a caller's own abort (which rethrows its signal's reason): an RFC 9457
 * problem from the service, or a call that got no answer. Never carries the key or the request headers.
 */
export class PlaybooksError extends Error implements PlaybooksErrorInit {
  override readonly name = 'PlaybooksError';
  readonly status: number;
  readonly code: string;
  readonly detail: string;
  readonly errors: ProblemField[];
  readonly title?: string;
  readonly type?: string;
  readonly instance?: string;
  readonly requestId?: string;
  readonly retryAfter?: number;
  readonly extensions: Record<string, unknown>;

  constructor(init: PlaybooksErrorInit, options?: { cause?: unknown }) {
    super(init.status ? `${init.status} ${init.code}: ${init.detail}` : `${init.code}: ${init.detail}`, options);
    this.status = init.status;
    this.code = init.code;
    this.detail = init.detail;
    this.errors = init.errors ?? [];
    this.title = init.title;
    this.type = init.type;
    this.instance = init.instance;
    this.requestId = init.requestId;
    this.retryAfter = init.retryAfter;
    this.extensions = init.extensions ?? {};
  }

  /** The error of a non-2xx answer whose body is still unread: for answers of `raw`. */
  static async fromResponse(response: Response): Promise<PlaybooksError> {
    const text = await response.text();
    let body: unknown = text;
    if (isJsonType(response.headers.get('content-type'))) {
      try {
        body = JSON.parse(text);
      } catch {
        // not the JSON it claims to be: its text is the detail
      }
    }
    return PlaybooksError.fromAnswer(response, body);
  }

  /** The error of a non-2xx answer whose body was already read (parsed JSON when it was JSON, else its text). */
  static fromAnswer(response: Response, body: unknown): PlaybooksError {
    const problem = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    const text = typeof body === 'string' ? body.slice(0, 200) : '';
    const retryAfter = retryAfterMs(response.headers.get('retry-after'));
    return new PlaybooksError({
      status: response.status,
      code: typeof problem.code === 'string' ? problem.code : `http_${response.status}`,
      detail: typeof problem.detail === 'string' ? problem.detail : text || response.statusText || `HTTP ${response.status}`,
      errors: Array.isArray(problem.errors) ? (problem.errors as ProblemField[]) : [],
      title: typeof problem.title === 'string' ? problem.title : undefined,
      type: typeof problem.type === 'string' ? problem.type : undefined,
      instance: typeof problem.instance === 'string' ? problem.instance : undefined,
      requestId: response.headers.get('x-request-id') ?? undefined,
      retryAfter: retryAfter === undefined ? undefined : Math.ceil(retryAfter / 1000),
      extensions: Object.fromEntries(Object.entries(problem).filter(([name]) => !problemMembers.has(name))),
    });
  }
}

/** Retry-After as milliseconds from now: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** application/json and its kin (application/problem+json), not JSON lines (application/x-ndjson). */
export function isJsonType(contentType: string | null): boolean {
  return /^application\/(?:[^;]*\+)?json\s*(?:;|$)/i.test(contentType ?? '');
}
