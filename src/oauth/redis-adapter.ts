import type { RedisClient } from '../infra/redis.js';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import { mcpEndpointWorkspace } from '../auth/mcp-resource.js';
import type { FindBearerToken } from '../gate/admission.js';
import { guardRedis } from '../infra/redis.js';

/**
 * Where the authorization server keeps its short-lived state (registered clients, interactions, codes, grants and
 * tokens): Redis, which every API process shares and which expires each record with its own lifetime. Grants'
 * meaning (which agent, approved by whom, revoked or not) lives in Neo4j with the agents (src/oauth/repository.ts);
 * this is the protocol's bookkeeping.
 *
 * Each record is one key, and the commands touch one key each (no MULTI across keys), so nothing here depends
 * on two keys sharing a Redis node. A token's id names its record, never its grant's, so a grant's records are
 * listed under the grant and removed one by one.
 */

/** Models whose records belong to a grant: revoking the grant removes them all. */
const grantable = new Set(['AccessToken', 'AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest']);
/** Models the provider marks used (a code, a refresh token): a second use is how reuse is detected. */
const consumable = new Set(['AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest']);

// Each key carries a hash tag, as every key of the service does (src/gate/redis-keys.ts): the record's id, so that a
// record and its consumed mark share a slot.
const recordKey = (model: string, id: string) => `{${id}}:oauth:${model}`;
const consumedKey = (model: string, id: string) => `{${id}}:oauth:${model}:consumed`;
const grantKey = (grantId: string) => `{${grantId}}:oauth:grant-records`;
const uidKey = (uid: string) => `{${uid}}:oauth:uid`;
const userCodeKey = (code: string) => `{${code}}:oauth:user-code`;
/** The record's id, from its key (the hash tag). */
const idOfKey = (key: string) => key.slice(1, key.indexOf('}'));

/**
 * How long a registered client is kept while no person has approved it: anyone may register one, so one that never
 * completed an authorization leaves by itself (RFC 7591 lets the server decide). An approved one is kept (keepClient).
 */
export const unusedClientSeconds = 24 * 3600;

/** An access token the authorization server removed (revoked, or ended with its grant), and the workspace it was for. */
export interface EndedToken {
  token: string;
  workspaceId: string;
}

export interface AdapterEvents {
  /** A grant's record was removed (the provider revoking a grant whose code or refresh token was used twice, or a person revoking it). */
  grantEnded: (grantId: string) => Promise<void>;
  /** Access tokens' records were removed (RFC 7009 revocation, or their grant's end). */
  tokensEnded: (tokens: EndedToken[]) => Promise<void>;
}

/**
 * Each method turns an unreachable Redis into the service's 503, which the consent page's steps answer with.
 * The events run when a grant's or an access token's record is removed, before the provider answers: the tokens are
 * refused from then on, on every process.
 */
export function redisAdapter(redis: RedisClient, events: AdapterEvents): new (model: string) => Adapter {
  /** The access tokens among these record keys, read before they are removed. */
  const accessTokensOf = async (keys: string[]): Promise<EndedToken[]> => {
    const ended: EndedToken[] = [];
    for (const key of keys.filter((k) => k.endsWith(':oauth:AccessToken'))) {
      const text = await redis.get(key);
      const workspaceId = text ? mcpEndpointWorkspace([(JSON.parse(text) as AccessTokenRecord).aud].flat()[0]) : undefined;
      if (workspaceId) ended.push({ token: idOfKey(key), workspaceId });
    }
    return ended;
  };

  return class RedisAdapter implements Adapter {
    constructor(private readonly model: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      // The provider gives a client no lifetime; one nobody approves gets one here.
      if (this.model === 'Client' && !expiresIn) expiresIn = unusedClientSeconds;
      return guardRedis(async () => {
        const put = (key: string, value: string) => (expiresIn ? redis.set(key, value, 'EX', expiresIn) : redis.set(key, value));
        const key = recordKey(this.model, id);
        await put(key, JSON.stringify(payload));
        if (grantable.has(this.model) && payload.grantId) {
          const records = grantKey(payload.grantId);
          await redis.rpush(records, key);
          // The list lives as long as its longest-lived record.
          if (expiresIn && expiresIn > (await redis.ttl(records))) await redis.expire(records, expiresIn);
        }
        if (payload.uid) await put(uidKey(payload.uid), id);
        if (payload.userCode) await put(userCodeKey(payload.userCode), id);
      });
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      return guardRedis(async () => {
        const text = await redis.get(recordKey(this.model, id));
        if (!text) return undefined;
        const payload = JSON.parse(text) as AdapterPayload;
        if (consumable.has(this.model)) {
          const consumed = await redis.get(consumedKey(this.model, id));
          if (consumed) payload.consumed = Number(consumed);
        }
        return payload;
      });
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return guardRedis(async () => {
        const id = await redis.get(uidKey(uid));
        return id ? this.find(id) : undefined;
      });
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      return guardRedis(async () => {
        const id = await redis.get(userCodeKey(userCode));
        return id ? this.find(id) : undefined;
      });
    }

    async consume(id: string): Promise<void> {
      return guardRedis(async () => {
        const ttl = await redis.ttl(recordKey(this.model, id));
        await redis.set(consumedKey(this.model, id), String(Math.floor(Date.now() / 1000)), 'EX', ttl > 0 ? ttl : 3600);
      });
    }

    async destroy(id: string): Promise<void> {
      const key = recordKey(this.model, id);
      const ended = await guardRedis(async () => {
        const tokens = this.model === 'AccessToken' ? await accessTokensOf([key]) : [];
        await redis.del(key);
        return tokens;
      });
      if (ended.length) await events.tokensEnded(ended);
      if (this.model === 'Grant') await events.grantEnded(id);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      const ended = await guardRedis(async () => {
        const records = grantKey(grantId);
        const keys = await redis.lrange(records, 0, -1);
        const tokens = await accessTokensOf(keys);
        for (const key of keys) await redis.del(key);
        await redis.del(records);
        return tokens;
      });
      if (ended.length) await events.tokensEnded(ended);
    }
  };
}

/** A registered client's record. */
export const clientKey = (clientId: string) => recordKey('Client', clientId);

/** Keeps a client for good: a person approved it, so it no longer expires as an unused registration does. */
export async function keepClient(redis: RedisClient, clientId: string): Promise<void> {
  await guardRedis(() => redis.persist(clientKey(clientId)));
}

/** An access token's record, as the provider wrote it. */
interface AccessTokenRecord {
  accountId: string;
  clientId: string;
  grantId: string;
  /** The resource (one workspace's MCP endpoint) the token is bound to. */
  aud?: string | string[];
  /** Epoch seconds. */
  exp: number;
}

/** The request gate's look-up of an OAuth access token: Redis alone (the gate reads the grant from Neo4j itself). */
export function bearerTokenFinder(redis: RedisClient, clock: () => Date): FindBearerToken {
  return async (token) => {
    // An opaque token is its own record's id; anything else cannot name a record.
    if (!/^[\w-]{20,100}$/.test(token)) return undefined;
    const text = await redis.get(recordKey('AccessToken', token));
    const record = text ? (JSON.parse(text) as AccessTokenRecord) : undefined;
    const workspaceId = mcpEndpointWorkspace([record?.aud].flat()[0]);
    if (!record || !workspaceId || record.exp * 1000 <= clock().getTime()) return undefined;
    return { grantId: record.grantId, workspaceId, expiresAt: new Date(record.exp * 1000).toISOString() };
  };
}
