import { parse as parseQuery } from 'node:querystring';
import { Type } from '@sinclair/typebox';
import type { Context } from 'koa';
import { LRUCache } from 'lru-cache';
import { prepareValidators, validateLargePart, validatePart } from '../api/validation.js';
import { AppError } from '../errors.js';
import { yieldToEventLoop } from '../infra/event-loop.js';
import { type JsonBody, largeBodyBytes, readJsonBody } from './json-body.js';
import type { AnyOperation } from '../api/operation.js';

// A route that takes no query parameters still refuses unknown ones.
const noQuery = Type.Object({}, { additionalProperties: false });

/** A request's input as its route's schemas validated it, defaults filled in, and the body as sent. */
export interface RequestInput {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body?: unknown;
  sent?: JsonBody;
}

/** Compiles a route's validators at start-up (see prepareValidators). */
export function prepareInput(route: AnyOperation): void {
  if (route.params) prepareValidators(route.params, 'path');
  prepareValidators(route.query ?? noQuery, 'query');
  if (route.body) prepareValidators(route.body, 'body');
}

/** The path parameters and the query, validated: all a GET reads of its request. */
export function readParamsAndQuery(route: AnyOperation, ctx: Context): Pick<RequestInput, 'params' | 'query'> {
  // ajv coerces and fills defaults in place, so it gets copies. node:querystring parses in one pass into a new
  // object (a repeated parameter becomes an array, as with ctx.query), where Koa's ctx.query builds each value
  // through URLSearchParams.getAll and defineProperty, and ajv then walks that object's copy far more slowly.
  const params = route.params ? validatePart<Record<string, unknown>>(route.params, { ...ctx.params }, 'path') : {};
  const query = validatePart<Record<string, unknown>>(route.query ?? noQuery, parseQuery(ctx.querystring, '&', '=', { maxKeys: 0 }), 'query');
  return { params, query };
}

/**
 * The path parameters and queries of requests validated lately, by route, path and query string: a request sent
 * again (a poll, a conditional GET) is not validated again. Only inputs of plain values are kept, and each request
 * gets copies, so that no handler sees what another changed.
 */
// Bounded in the characters of its keys too: a URL may be up to the 16 KiB of a request line.
const validated = new LRUCache<string, Pick<RequestInput, 'params' | 'query'>>({ max: 10_000, maxSize: 4 * 1024 * 1024, sizeCalculation: (_, key) => key.length });
const scalarsOnly = (values: Record<string, unknown>) => Object.values(values).every((v) => v === null || typeof v !== 'object');

/** readParamsAndQuery, once per route, path and query string (see validated). */
export function readParamsAndQueryOnce(route: AnyOperation, ctx: Context): Pick<RequestInput, 'params' | 'query'> {
  const key = `${route.operationId} ${ctx.path}?${ctx.querystring}`;
  const known = validated.get(key);
  if (known) return { params: { ...known.params }, query: { ...known.query } };
  const input = readParamsAndQuery(route, ctx);
  if (scalarsOnly(input.params) && scalarsOnly(input.query)) validated.set(key, { params: { ...input.params }, query: { ...input.query } });
  return input;
}

/**
 * The body (only for routes that take one, and only for a caller that passed the access check), the path
 * parameters and the query, validated. A large body's validation gets turns of its own, and so does what follows it.
 */
export async function readInput(route: AnyOperation, ctx: Context): Promise<RequestInput> {
  // ctx.is answers false for a body of another type (and null when there is no body).
  if (ctx.request.length !== 0 && ctx.is('application/json') === false) {
    throw new AppError('unsupported_media_type', 'The request body must be application/json');
  }
  const sent = await readJsonBody(ctx, route.maxBodyBytes);
  const large = sent.bytes.length >= largeBodyBytes;
  const { params, query } = readParamsAndQuery(route, ctx);
  const body = await (large ? validateLargePart(route.body!, sent.value) : validatePart(route.body!, sent.value, 'body'));
  // A large body's validation, its Idempotency-Key fingerprint and its handler each get a turn of their own.
  if (large) await yieldToEventLoop();
  return { params, query, body, sent };
}
