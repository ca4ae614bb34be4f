import type { Static, TObject, TSchema } from '@sinclair/typebox';
import type { Context } from 'koa';
import type { Caller, Principal, Role } from '../auth/caller.js';

/**
 * Who may call a route.
 * - public: no key (health, docs).
 * - operator: the ADMIN_TOKEN (admin API); with `analyst`, the ANALYST_TOKEN too (read-only Cypher).
 * - workspace: a member of the `:workspaceId` in the path, with at least `minRole`;
 *   `userKeyOnly` routes answer 403 user_key_required to an agent key before any look-up.
 * - principal: any valid API key (user or agent), on a route whose path names no workspace (the caller's own
 *   workspaces); the handler gets the key's `principal` and no `caller`.
 */
export type Access =
  | { kind: 'public' }
  | { kind: 'operator'; analyst?: boolean }
  | { kind: 'workspace'; minRole: Role; userKeyOnly?: boolean; oauth?: boolean }
  | { kind: 'principal' };

export interface ResponseSpec {
  description: string;
  schema?: TSchema;
  /** Response headers worth documenting, name → description. */
  headers?: Record<string, string>;
  /** Other media types the same status may answer with (chosen by Accept), media type → description. */
  otherTypes?: Record<string, string>;
}

type Empty = TObject<{}>;

export interface RouteInput<P extends TObject, Q extends TObject, B extends TSchema> {
  params: Static<P>;
  query: Static<Q>;
  body: Static<B>;
}

/**
 * What a handler receives: the validated input, the caller (absent on public, operator and principal routes), the
 * principal (absent on public and operator routes), and ctx.
 * On an operator route `ctx.state.operator` says which token let the request in ('admin' or 'analyst').
 */
export interface HandlerArgs<P extends TObject, Q extends TObject, B extends TSchema> extends RouteInput<P, Q, B> {
  caller: Caller;
  /** Who the key belongs to, on workspace and principal routes. */
  principal: Principal;
  /** The request's id (X-Request-Id), for services that record what the request changed (operator routes). */
  requestId: string;
  ctx: Context;
}

/**
 * One endpoint: its path, who may call it, the JSON Schemas of its input (which both validate the
 * request and document it in OpenAPI) and of its responses, and a thin handler.
 */
export interface RouteSpec<P extends TObject = Empty, Q extends TObject = Empty, B extends TSchema = TSchema> {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** Absolute, `:name` marks a path parameter: /api/v1/workspaces/:workspaceId/playbooks/:playbookId */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  access: Access;
  /** Counts against the workspace's monthly retrieval quota (bundle, manifest): see RequestGate. */
  metered?: boolean;
  /**
   * Sending it twice has the effect of sending it once, so a client may retry it after a 503 or a lost connection
   * (documented as `x-idempotent`; the SDK's retry policy is generated from it). A GET, PUT, PATCH or DELETE is by
   * default; a POST only when it says so (restore, reactivate, an import that converges).
   */
  idempotent?: boolean;
  /**
   * For a GET whose answer is derived from the workspace's graph alone (what the graph generation covers): its
   * 200 answers are kept as bytes (ResponseCache) and carry a strong ETag, and a matching If-None-Match is a 304.
   * `when` decides on the body whether an answer qualifies (absent: every answer does, so a 304 needs no
   * handler at all); `perCaller` says, from the validated query, whether the answer also depends on who asks.
   */
  cache?: { when?: (body: any, caller: Omit<Caller, 'requestId'>) => boolean; perCaller?: (query: Static<Q>) => boolean };
  params?: P;
  query?: Q;
  body?: B;
  /** Largest request body accepted (413 past it); 1 MiB when absent (docs/api.md, "Everywhere"). Only a workspace import raises it. */
  maxBodyBytes?: number;
  responses: Record<number, ResponseSpec>;
  /** Problem statuses worth listing in the documentation besides the ones every route has. */
  errors?: number[];
  /** Sets ctx.status and ctx.body (and headers); returns nothing. */
  handler: (args: HandlerArgs<P, Q, B>) => Promise<void>;
}

export type AnyRoute = RouteSpec<any, any, any>;

/** Whether a client may send the operation again after a 503 or a lost connection. */
export const isIdempotent = (route: Pick<AnyRoute, 'method' | 'idempotent'>): boolean => route.idempotent ?? route.method !== 'post';

/** Identity function that lets TypeScript infer the handler's input types from the schemas. */
export function defineRoute<P extends TObject = Empty, Q extends TObject = Empty, B extends TSchema = TSchema>(
  spec: RouteSpec<P, Q, B>,
): RouteSpec<P, Q, B> {
  return spec;
}
