import { PlaybooksError, isJsonType } from './errors.js';
import type { CallPolicy } from './transport.js';

/** One value of a query parameter. */
export type QueryValue = string | number | boolean;

/** What `client.request` sends to a route the facade does not wrap. */
export interface RouteRequest {
  /** Added to the path's query string; a list repeats the parameter, an undefined value is left out. */
  query?: Record<string, QueryValue | readonly QueryValue[] | undefined>;
  /** Sent as JSON, with `Content-Type: application/json` unless `headers` name another type. */
  json?: unknown;
  /** Sent as it is (text, bytes, a form): for a body that `json` cannot express. */
  body?: BodyInit;
  /** Sent as given (`accept: 'text/csv'` for a CSV answer); the client's key is the Authorization whatever they say. */
  headers?: HeadersInit;
  /**
   * Sending it twice has the effect of sending it once, so a 503 or a lost connection may be retried as it is
   * (default: true for GET, HEAD, PUT, DELETE and OPTIONS). A POST that is not is sent with an Idempotency-Key
   * instead, so that a retry is replayed by the service rather than made twice.
   */
  idempotent?: boolean;
}

/** What `client.raw` sends. */
export interface RawRequest extends RouteRequest {
  /** The answer's body is left unread, for the caller to stream; the attempt's timeout then ends with its headers. */
  stream?: boolean;
}

/** An answer of `client.request`: the body as JSON when it is JSON, else as text; undefined when there is none. */
export interface RouteAnswer<T = unknown> {
  status: number;
  headers: Headers;
  data: T;
}

const idempotentMethods = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

/** How the transport may treat a request that `raw` sends. */
export function policyOf(method: string, init: RawRequest): CallPolicy {
  const idempotent = init.idempotent ?? idempotentMethods.has(method.toUpperCase());
  return { idempotent, idempotencyKey: !idempotent, stream: init.stream };
}

/** The request `raw` sends: the path (with `query`) under the base URL, its headers and body; the caller then authorizes it. */
export function routeRequest(baseUrl: string, method: string, path: string, init: RawRequest): Request {
  if (!path.startsWith('/')) throw new TypeError(`A path starts with '/': ${path}`);
  const url = new URL(`${baseUrl}${path}`);
  for (const [name, value] of Object.entries(init.query ?? {})) {
    for (const one of Array.isArray(value) ? value : [value]) if (one !== undefined) url.searchParams.append(name, String(one));
  }
  const headers = new Headers(init.headers);
  let body = init.body;
  if (init.json !== undefined) {
    body = JSON.stringify(init.json);
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
  }
  return new Request(url, { method, headers, body });
}

/** Reads an answer of `raw`: its body parsed, or the PlaybooksError of a problem. */
export async function readAnswer<T>(response: Response): Promise<RouteAnswer<T>> {
  if (!response.ok) throw await PlaybooksError.fromResponse(response);
  const text = await response.text();
  const data = !text ? undefined : isJsonType(response.headers.get('content-type')) ? JSON.parse(text) : text;
  return { status: response.status, headers: response.headers, data: data as T };
}
