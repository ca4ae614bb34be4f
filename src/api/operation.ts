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

/** What an operation's `run` receives, however it was called: its validated input and who calls. */
export interface OperationInput<P extends TObject, Q extends TObject, B extends TSchema> extends RouteInput<P, Q, B> {
  caller: Caller;
  /** Who the key belongs to, on workspace and principal routes. */
  principal: Principal;
  /** The request's id (X-Request-Id), for services that record what the request changed (operator routes). */
  requestId: string;
}

/** A tool's answer: its structured content, and the same as JSON text (cached answers come as their bytes). */
export interface ToolAnswer {
  structured: Record<string, unknown>;
  text: string;
}

/** One MCP tool call: the caller the gate admitted for its request, the key it carried, the server's budget. */
export interface ToolCall {
  caller: Caller;
  token: string;
  /** The budget (tokens of the whole result) applied when a call names none. */
  defaultMaxTokens: number;
}

/** What a tool's `run` may do beyond its arguments: its budget, and its operation run as the REST route runs it. */
export interface ToolRun<P extends TObject, Q extends TObject, B extends TSchema> extends ToolCall {
  /** The budget the call named, or the server's. */
  budget(maxTokens: number | undefined): number;
  /**
   * The operation with this input, as its REST route runs it: metered, and from the answer cache under the same
   * key and ETag, when the operation is; the caller's role checked against the operation's.
   */
  operation(input: Partial<RouteInput<P, Q, B>>): Promise<ToolAnswer>;
}

/**
 * An operation's face as an MCP tool: arguments typed from its input schema (validated like a REST body before
 * `run`), what the agent sees, and how the arguments become the operation's input.
 */
export interface ToolFace<I extends TObject, P extends TObject, Q extends TObject, B extends TSchema> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: TObject;
  /** A write that replaces what was there (so it may remove something), and gives the same state when repeated. */
  replaces?: boolean;
  run(args: Static<I>, call: ToolRun<P, Q, B>): Promise<ToolAnswer>;
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
 * One operation, defined once: its path, who may call it, the JSON Schemas of its input (which both validate the
 * request and document it in OpenAPI) and of its responses, whether it is metered, cached or idempotent, and the
 * function that runs it. The REST route, the OpenAPI entry (and from it the SDK's method and retry policy) and,
 * with `tool`, the MCP tool are its faces. docs/conventions.md shows how to add one.
 */
export interface OperationSpec<P extends TObject = Empty, Q extends TObject = Empty, B extends TSchema = TSchema, I extends TObject = TObject> {
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
   * For a read whose answer is derived from the workspace's graph alone (what the graph generation covers): a GET,
   * keyed by its query, or a POST that only reads, keyed by its body (a context query). Its 200 answers are kept as bytes (ResponseCache) and carry a strong ETag, and a matching If-None-Match is a 304.
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
  /**
   * Runs the operation and resolves to its answer: over REST the body of its first success status (201 for a
   * create, none for a 204). An operation whose REST answer needs the exchange itself (headers, a stream, a
   * negotiated type) has `handler` instead.
   */
  run?: (input: OperationInput<P, Q, B>) => Promise<unknown>;
  /** Sets ctx.status and ctx.body (and headers); returns nothing. Only for REST-only operations without `run`. */
  handler?: (args: HandlerArgs<P, Q, B>) => Promise<void>;
  /** The operation as an MCP tool (tools/list, tools/call); it needs `run`. */
  tool?: ToolFace<I, P, Q, B>;
}

export type AnyOperation = OperationSpec<any, any, any, any>;

/** Whether a client may send the operation again after a 503 or a lost connection. */
export const isIdempotent = (route: Pick<AnyOperation, 'method' | 'idempotent'>): boolean => route.idempotent ?? route.method !== 'post';

/** Checks the definition and lets TypeScript infer `run`'s, `handler`'s and the tool's input types from the schemas. */
export function defineOperation<P extends TObject = Empty, Q extends TObject = Empty, B extends TSchema = TSchema, I extends TObject = TObject>(
  spec: OperationSpec<P, Q, B, I>,
): OperationSpec<P, Q, B, I> {
  if (!spec.run === !spec.handler) throw new Error(`${spec.operationId}: an operation has either run or handler`);
  if (spec.tool && !spec.run) throw new Error(`${spec.operationId}: a tool face needs run`);
  return spec;
}

/** The status of an operation's answer over REST when `run` resolves: its first documented success. */
export function successStatus(route: Pick<AnyOperation, 'responses' | 'operationId'>): number {
  const status = Object.keys(route.responses).map(Number).find((code) => code >= 200 && code < 300);
  if (status === undefined) throw new Error(`${route.operationId}: no success response documented`);
  return status;
}
