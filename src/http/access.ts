import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import type { Principal } from '../auth/caller.js';
import { AppError } from '../errors.js';
import type { Admission } from '../gate/admission.js';
import type { RequestGate } from '../gate/gate.js';
import type { AnyOperation } from '../api/operation.js';

/** What the access checks need. */
export interface AccessDeps {
  gate: Pick<RequestGate, 'admit' | 'identify' | 'authenticate'>;
  adminToken?: string;
  /** Also opens the operator routes marked `analyst` (POST /api/v1/admin/cypher). */
  analystToken?: string;
}

/** Who a request let in: the gate's admission on a workspace route, the key's principal on a principal route. */
export interface Entry {
  admission?: Admission;
  principal?: Principal;
}

/** Lets a request in (its Entry) or throws its 401/403/404/429 problem. */
export type AccessCheck = (ctx: Context) => Promise<Entry> | Entry;

/** The key of `Authorization: Bearer <key>`, if any. */
export function bearer(ctx: Context): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'));
  return match?.[1];
}

/** Constant-time comparison: both sides are hashed first so their lengths say nothing either. */
function sameSecret(given: string, expected: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

const nobody: Entry = {};

/** The access check of a route, by its `access` kind (see Access in route.ts). */
export function accessCheckOf(route: AnyOperation, deps: AccessDeps): AccessCheck {
  const { access } = route;
  switch (access.kind) {
    case 'operator':
      return operatorOnly(access.analyst ?? false, deps);
    case 'workspace': {
      const rule = { ...access, metered: route.metered };
      return async (ctx) => ({ admission: await deps.gate.admit(bearer(ctx), ctx.params.workspaceId, rule) });
    }
    case 'principal':
      return async (ctx) => ({ principal: await deps.gate.authenticate(bearer(ctx)) });
    case 'public':
      return () => nobody;
  }
}

/**
 * The operator's token (and, on an `analyst` route, the analysts' token) lets the request in; a valid API key
 * is 403, anything else 401.
 */
function operatorOnly(analyst: boolean, deps: AccessDeps): AccessCheck {
  const tokens = [
    { who: 'admin', secret: deps.adminToken },
    { who: 'analyst', secret: analyst ? deps.analystToken : undefined },
  ].filter((t): t is { who: string; secret: string } => Boolean(t.secret));
  const wanted = analyst ? 'the analyst or operator token' : 'the operator token';
  return async (ctx) => {
    // No token configured: the route does not exist.
    if (tokens.length === 0) throw new AppError('not_found', 'No such route');
    const token = bearer(ctx);
    // Every configured token is compared, so the time taken does not say which one matched.
    const matched = token ? tokens.filter((t) => sameSecret(token, t.secret)) : [];
    if (matched.length > 0) {
      ctx.state.operator = matched[0].who;
      return nobody;
    }
    if (token && (await deps.gate.identify(token))) throw new AppError('forbidden', `This endpoint takes ${wanted}, not an API key`);
    throw new AppError('unauthorized', `${wanted[0].toUpperCase()}${wanted.slice(1)} is required`);
  };
}
