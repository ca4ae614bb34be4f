import type { Logger } from 'pino';
import { type Caller, type Principal, type Role, roleAtLeast } from '../auth/caller.js';
import { hashKey, keyKind } from '../auth/keys.js';
import { AppError, notFound } from '../errors.js';
import { isRedisUnavailable, redisUnavailable } from '../infra/redis.js';
import type { AccessCache, KeyAccess } from './access-cache.js';
import { dayOf, periodOf } from './period.js';
import { readScope } from '../infra/read-scope.js';
import type { QuotaMeter, QuotaTicket } from './quota.js';
import type { GateRepository } from './repository.js';
import type { GateReading, GateRoundTrip } from './round-trip.js';
import type { ChangeSignals } from './signals.js';

/**
 * Every failed authentication looks the same: the body never says why, and never repeats the key. `challenge` is
 * the WWW-Authenticate value; an endpoint that publishes its resource metadata names it there (src/mcp/protected-resource.ts).
 */
export const unauthorized = (challenge = 'Bearer') =>
  new AppError('unauthorized', 'A valid API key is required', { headers: { 'WWW-Authenticate': challenge } });

/** What a route asks of its caller. */
export interface AccessRule {
  minRole: Role;
  /** Agent keys are refused (403 user_key_required), once the key is known to be valid. */
  userKeyOnly?: boolean;
  /** Counts against the workspace's monthly retrieval quota (bundle, manifest). */
  metered?: boolean;
  /** Also takes an OAuth access token bound to this workspace's MCP endpoint (the MCP endpoint alone does). */
  oauth?: boolean;
}

/** What an OAuth access token stands for, as the authorization server stored it (src/oauth/). */
export interface BearerToken {
  grantId: string;
  /** The workspace whose MCP endpoint the token is bound to. */
  workspaceId: string;
  expiresAt: string;
}

/** Finds the OAuth access token a request presents; undefined when it is unknown, expired or revoked. */
export type FindBearerToken = (token: string) => Promise<BearerToken | undefined>;

/** A request the gate let through. */
export interface Admission {
  /** The caller; the router adds the request's id. */
  caller: Omit<Caller, 'requestId'>;
  /** The workspace's graph generation, read in the same round trip; undefined when Redis cannot be reached. */
  generation?: string;
  quota?: QuotaTicket;
}

export interface AdmissionDeps {
  logger: Logger;
  clock: () => Date;
  rateLimitPerKeyPerMinute?: number;
  /** Absent: only API keys authenticate. */
  findBearerToken?: FindBearerToken;
}

/**
 * Who a request's key is and what it may do in the workspace: the gate's round trip (GateRoundTrip) read first,
 * then the key's access from the AccessCache under the epoch just read (Neo4j only on a miss), the per-key rate
 * limit and the route's rule; a metered request gets its ticket from the QuotaMeter. When Redis cannot be
 * reached Neo4j decides, and a metered or rate-limited request is a 503.
 */
export class Admitter {
  /** Key id → when it was last used; written to Neo4j in batches, so using a key costs no write per request. */
  private uses = new Map<string, Date>();

  constructor(
    private readonly deps: AdmissionDeps,
    private readonly roundTrip: GateRoundTrip,
    private readonly repo: GateRepository,
    private readonly cache: AccessCache,
    private readonly quota: QuotaMeter,
    private readonly signals: ChangeSignals,
  ) {}

  /**
   * Lets a request with this bearer key into a workspace under `rule`, or throws its problem, in the order a
   * caller should learn them: 401 (no valid key), 403 user_key_required, 404 (not a member), 429 rate_limited,
   * 403 insufficient_role, 429 quota_exceeded. A malformed key or one failing its checksum costs no look-up.
   */
  async admit(token: string | undefined, workspaceId: string, rule: AccessRule): Promise<Admission> {
    if (!token) throw unauthorized();
    const apiKey = keyKind(token) !== undefined;
    // Anything that is not an API key can only be an OAuth access token, which one endpoint alone takes.
    if (!apiKey && !(rule.oauth && this.deps.findBearerToken)) throw unauthorized();
    const keyHash = hashKey(token);
    const delivery = this.signals.delivery;
    if (delivery) await delivery;
    const now = this.deps.clock();
    const period = periodOf(now);
    const reading = await this.read(keyHash, workspaceId, rule.metered ?? false, now, period);
    const counted = reading?.quota.state === 'ok';
    try {
      if (reading?.revoked) throw unauthorized();
      const epoch = reading?.epoch;
      // A cache hit (the usual request) costs no await.
      const { principal, role } =
        (epoch ? this.cache.get(keyHash, workspaceId, epoch, now) : undefined) ??
        (await (apiKey ? this.load(keyHash, workspaceId, epoch, now) : this.loadToken(token, keyHash, workspaceId, epoch, now)));
      if (!principal) throw unauthorized();
      // A token's use is its grant's, which has no lastUsedAt to keep.
      if (principal.kind === 'user' || !principal.client) this.uses.set(principal.keyId, now);
      if (rule.userKeyOnly && principal.kind === 'agent') {
        throw new AppError('user_key_required', 'This endpoint takes a user key; agent keys cannot manage agents or members');
      }
      if (!role) throw notFound('Workspace');
      this.checkRate(reading, now);
      if (!roleAtLeast(role, rule.minRole)) {
        throw new AppError('insufficient_role', `This needs the ${rule.minRole} role or higher; the caller is ${role}`);
      }
      const caller: Admission['caller'] = { principal, workspaceId, role, actingUserId: principal.kind === 'user' ? principal.id : principal.sponsorUserId };
      const quota = rule.metered && reading ? this.quota.ticket(reading.quota, workspaceId, period, now, principal) : undefined;
      return { caller, generation: reading?.generation, quota };
    } catch (err) {
      if (counted) await this.quota.refund(workspaceId, now);
      throw err;
    }
  }

  /**
   * Counts one retrieval (bundle, manifest) made inside a request the gate already admitted: an MCP tool call,
   * where one POST may carry any tool. One round trip like admit's (shared with the event-loop turn), which
   * counts the quota and reads the current graph generation; the request itself was already rate-limited.
   * Past the limit it throws quota_exceeded, as a metered route would.
   */
  async meter(token: string, caller: Admission['caller']): Promise<Omit<Admission, 'caller'> & { quota: QuotaTicket }> {
    const { workspaceId } = caller;
    const now = this.deps.clock();
    const period = periodOf(now);
    const reading = (await this.read(hashKey(token), workspaceId, true, now, period, false))!;
    if (reading.revoked) {
      if (reading.quota.state === 'ok') await this.quota.refund(workspaceId, now);
      throw unauthorized();
    }
    return { generation: reading.generation, quota: this.quota.ticket(reading.quota, workspaceId, period, now, caller.principal) };
  }

  /** The principal behind a valid API key, or undefined (the admin API tells a valid key, 403, from any other, 401). */
  async identify(token: string): Promise<Principal | undefined> {
    return keyKind(token) ? (await this.repo.key(hashKey(token), this.deps.clock()))?.principal : undefined;
  }

  /**
   * The principal behind a valid API key, for a route whose path names no workspace (the caller's own
   * workspaces), or 401. Decided by Neo4j, which knows every revocation and expiry at once: such a route is not on
   * the hot path, and no workspace's epoch could vouch for a cached answer.
   */
  async authenticate(token: string | undefined): Promise<Principal> {
    const delivery = this.signals.delivery;
    if (delivery) await delivery;
    const principal = token ? await this.identify(token) : undefined;
    if (!principal) throw unauthorized();
    this.uses.set(principal.keyId, this.deps.clock());
    return principal;
  }

  /**
   * Writes buffered lastUsedAt values in one statement. The timer calls it and stop() once more; a failed
   * write keeps the values for the next flush.
   */
  async flushUses(): Promise<void> {
    if (this.uses.size === 0) return;
    const pending = this.uses;
    this.uses = new Map();
    try {
      await this.repo.touchKeys([...pending].map(([keyId, at]) => ({ keyId, at: at.toISOString() })));
    } catch (err) {
      this.deps.logger.warn({ err }, 'could not record key use');
      for (const [keyId, at] of pending) if (!this.uses.has(keyId)) this.uses.set(keyId, at);
    }
  }

  /** The gate round trip for one request, seeding a missing quota limit or counter from Neo4j first. */
  private async read(keyHash: string, workspaceId: string, metered: boolean, now: Date, period: string, rateLimited = true): Promise<GateReading | undefined> {
    const minute = rateLimited && this.deps.rateLimitPerKeyPerMinute ? Math.floor(now.getTime() / 60_000) : undefined;
    try {
      for (let attempt = 0; attempt < 3; attempt++) {
        const reading = await this.roundTrip.read({ keyHash, workspaceId, metered, period, day: dayOf(now), minute });
        const { state } = reading.quota;
        if (state === 'seed-limit' || state === 'seed-count') {
          await this.quota.seed(state, workspaceId, period);
        } else {
          if (state === 'ok') this.quota.noteCounted(workspaceId, period);
          // The request's reads, this gate's own included, start with the workspace's latest writes.
          const scope = readScope();
          if (scope) scope.bookmarks = reading.bookmarks;
          return reading;
        }
      }
      throw new Error('quota counter could not be seeded');
    } catch (err) {
      if (!isRedisUnavailable(err)) throw err;
      if (metered || minute !== undefined) throw redisUnavailable(err);
      this.deps.logger.warn({ err: (err as Error).message }, 'redis unreachable: authenticating against Neo4j');
      return undefined;
    }
  }

  /** The key's access to the workspace, from Neo4j: cached under the epoch this request read (never past the key's expiry). */
  private async load(keyHash: string, workspaceId: string, epoch: string | undefined, now: Date): Promise<KeyAccess> {
    const found = await this.repo.key(keyHash, now);
    const principal = found?.principal;
    let role: Role | undefined;
    // An agent's role (already capped by its sponsor's current role) came with its key.
    if (principal?.kind === 'agent') role = principal.workspaceId === workspaceId ? principal.role : undefined;
    else if (principal) role = await this.repo.userRole(principal.id, workspaceId);
    const access: KeyAccess = { principal, role, ...(found?.expiresAt ? { expiresAt: found.expiresAt } : {}) };
    if (epoch) this.cache.set(keyHash, workspaceId, epoch, access, now);
    return access;
  }

  /**
   * An OAuth access token's access to the workspace: the token from the authorization server's store, then its
   * grant from Neo4j, cached like a key's under the epoch this request read and never past the token's expiry. A
   * token bound to another workspace's endpoint is unknown here.
   */
  private async loadToken(token: string, keyHash: string, workspaceId: string, epoch: string | undefined, now: Date): Promise<KeyAccess> {
    const found = await this.deps.findBearerToken!(token);
    const grant = found?.workspaceId === workspaceId ? await this.repo.grant(found.grantId, workspaceId) : undefined;
    const access: KeyAccess = grant
      ? {
          principal: {
            kind: 'agent', id: grant.agentId, keyId: found!.grantId, workspaceId, sponsorUserId: grant.sponsorUserId, role: grant.role,
            client: { id: grant.clientId, name: grant.clientName },
          },
          role: grant.role,
          expiresAt: found!.expiresAt,
        }
      : {};
    if (epoch) this.cache.set(keyHash, workspaceId, epoch, access, now);
    return access;
  }

  private checkRate(reading: GateReading | undefined, now: Date): void {
    const perMinute = this.deps.rateLimitPerKeyPerMinute;
    if (!perMinute || !reading?.requestsThisMinute || reading.requestsThisMinute <= perMinute) return;
    const retryAfter = Math.max(1, Math.ceil((60_000 - (now.getTime() % 60_000)) / 1000));
    throw new AppError('rate_limited', `More than ${perMinute} requests a minute with this key`, { headers: { 'Retry-After': String(retryAfter) } });
  }
}
