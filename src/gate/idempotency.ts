import { hash, randomUUID } from 'node:crypto';
import type { RedisClient } from '../infra/redis.js';
import { AppError } from '../errors.js';
import { guardRedis } from '../infra/redis.js';
import { redisKeys } from './redis-keys.js';

/** How long an answer is kept for a retry with the same key (Stripe's window). */
const keepSeconds = 24 * 3600;
/** How long a request holding a key may run before another with the same key may start. */
const inFlightSeconds = 120;
export const maxIdempotencyKeyLength = 255;

/** What was answered to the first request with a key: replayed to every retry of it. */
export interface StoredAnswer {
  status: number;
  /** The JSON answer, or with `type` the answer's bytes in base64. */
  body: unknown;
  type?: string;
}

/** A key taken by a request: record its answer, or let it go when the request failed. */
export interface IdempotencyClaim {
  /** The answer to send instead of running the request again (a retry of one that succeeded). */
  replay?: StoredAnswer;
  complete(answer: StoredAnswer): Promise<void>;
  release(): Promise<void>;
}

/**
 * Ends a claim if the key still holds it (a key whose claim expired may have been taken by another request since):
 * keeps the answer under it for ARGV[3] seconds, or with no answer lets the key go.
 */
const settleScript = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[2] == '' then return redis.call('DEL', KEYS[1]) end
redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
return 1`;

/** How a claim ends: the answer to keep, or '' to let the key go. */
interface Settlement {
  claim: string;
  answer: string;
  claimedAt: number;
}

/**
 * `Idempotency-Key` on POST, with the semantics Stripe documents: the first request with a key runs and its
 * successful answer is kept for 24 hours; a retry with the same key and the same request gets that answer again
 * and writes nothing; the same key with another request is 422; while the first still runs, 409. A request whose
 * key cannot be checked (Redis unreachable) is refused (503) before anything is written. Keys are scoped by the
 * workspace and the caller's key, so two callers can never see each other's answers.
 *
 * A claim that cannot be ended because Redis went away meanwhile is owed: it is ended as soon as the connection
 * is ready again, before any later command on it, so a request that failed leaves its key free once Redis is back
 * rather than when the claim expires.
 */
export class IdempotencyStore {
  private readonly owed = new Map<string, Settlement>();

  constructor(private readonly redis: RedisClient) {
    redis.on('ready', () => void this.settleOwed());
  }

  async claim(scope: { workspaceId: string; callerKeyId: string }, key: string, request: { method: string; path: string; bodyDigest: string }): Promise<IdempotencyClaim> {
    if (key.length === 0 || key.length > maxIdempotencyKeyLength) {
      throw new AppError('invalid_request', `The Idempotency-Key header must be 1 to ${maxIdempotencyKeyLength} characters`, {
        errors: [{ path: '/Idempotency-Key', message: `must be 1 to ${maxIdempotencyKeyLength} characters`, in: 'header' }],
      });
    }
    const name = redisKeys.idempotency(scope.workspaceId, scope.callerKeyId, hash('sha256', key, 'base64url'));
    const fingerprint = hash('sha256', `${request.method} ${request.path}\n${request.bodyDigest}`, 'base64url');
    // The claim is unique to this request, so that only this request can end it.
    const claim = JSON.stringify({ fingerprint, claim: randomUUID() });
    const claimedAt = Date.now();
    const taken = await guardRedis(() => this.redis.set(name, claim, 'EX', inFlightSeconds, 'NX'));
    if (!taken) {
      const held = JSON.parse((await guardRedis(() => this.redis.get(name))) ?? '{}') as { fingerprint?: string; answer?: StoredAnswer };
      if (held.fingerprint && held.fingerprint !== fingerprint) {
        throw new AppError('idempotency_key_reused', 'This Idempotency-Key was used with another request; use a new key for a new request');
      }
      if (!held.answer) throw new AppError('conflict', 'A request with this Idempotency-Key is still running; retry once it has answered', { headers: { 'Retry-After': '1' } });
      return { replay: held.answer, complete: async () => {}, release: async () => {} };
    }
    return {
      complete: (answer) => this.settle(name, { claim, answer: JSON.stringify({ fingerprint, answer }), claimedAt }),
      release: () => this.settle(name, { claim, answer: '', claimedAt }),
    };
  }

  /** Ends a claim now, or owes it until Redis is ready again. Never fails the request it belongs to. */
  private async settle(name: string, settlement: Settlement): Promise<void> {
    try {
      await this.redis.eval(settleScript, 1, name, settlement.claim, settlement.answer, keepSeconds);
      this.owed.delete(name);
    } catch {
      this.owed.set(name, settlement);
    }
  }

  /** Sends every owed settlement at once, so they reach Redis ahead of whatever the next request asks. */
  private async settleOwed(): Promise<void> {
    const now = Date.now();
    const settling: Promise<void>[] = [];
    for (const [name, settlement] of this.owed) {
      // A claim past its expiry is gone from Redis already.
      if (now - settlement.claimedAt > inFlightSeconds * 1000) this.owed.delete(name);
      else settling.push(this.settle(name, settlement));
    }
    await Promise.all(settling);
  }
}
