import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import DataLoader from 'dataloader';
import type { ChainableCommander } from 'ioredis';
import type { Logger } from 'pino';
import { projectRoot } from '../infra/project-root.js';
import { pipelineEach, type RedisClient } from '../infra/redis.js';
import { redisKeys } from './redis-keys.js';

/** What one request asks Redis. */
export interface GateQuery {
  keyHash: string;
  workspaceId: string;
  /** Counts against the workspace's monthly quota (bundle, manifest). */
  metered: boolean;
  /** The quota's month, `YYYY-MM`. */
  period: string;
  /** The day (UTC) a metered request is also counted under, `YYYY-MM-DD`. */
  day: string;
  /** The rate limit's minute, when per-key rate limiting is on. */
  minute?: number;
}

export type QuotaState = 'open' | 'ok' | 'exhausted' | 'revoked' | 'seed-limit' | 'seed-count';

/** What Redis answered for one request, read in the round trip its event-loop turn shared. */
export interface GateReading {
  /** The workspace's auth epoch: cached access answers are trusted only under the epoch they were loaded in. */
  epoch: string;
  /** The workspace's graph generation: the key of cached answers and ETags. */
  generation: string;
  /** The bookmarks of the workspace's latest writes, through any process (see redisKeys.bookmarks). */
  bookmarks: string[];
  /** The key is marked revoked for this workspace. */
  revoked: boolean;
  quota: { state: QuotaState; used: number; limit: number };
  /** This key's requests in the current minute, this one included (when rate limiting is on). */
  requestsThisMinute?: number;
}

/** Counters outlive their month by a few days: the usage endpoint can still read last month. */
export const counterTtlSeconds = 40 * 24 * 3600;
/** How long a call's record answers a resend of it: longer than ioredis goes on resending through a failover. */
const callRecordTtlSeconds = 60;
/** A rate window's counter outlives its minute by one more. */
const rateTtlSeconds = 120;
/** At most this many requests share one round trip (bounds the time Redis spends on one batch). */
const maxRequestsPerRoundTrip = 256;

/** How long a cancelled call's record keeps the call from counting, and how long its cancel is sent again. */
const cancelledTtlSeconds = 3600;
const cancelRetryMs = { first: 500, most: 10_000 };

const script = readFileSync(path.join(projectRoot, 'redis', 'request-gate.lua'), 'utf8');
const cancelScript = readFileSync(path.join(projectRoot, 'redis', 'cancel-gate-call.lua'), 'utf8');

/** One request's part of the reply: revoked (1 or 0), state, used, limit. */
type RequestReply = [number, QuotaState, number, number];
type Reply = [string, string, string[], ...RequestReply[]];
/** A rate counter of the batch: its place among the batch's counters, and how many of its requests the batch holds. */
type RateCounter = { at: number; requests: number };
/** redis/request-gate.lua, defined as a command on the connection (and so on its pipelines). */
type GateCommand = { requestGate(...args: (string | number)[]): Promise<Reply> & ChainableCommander };
/** redis/cancel-gate-call.lua. */
type CancelCommand = { cancelGateCall(...args: (string | number)[]): Promise<number> };

/**
 * Sends the gate queries of one event-loop turn in ONE round trip: one script call per workspace
 * (redis/request-gate.lua, all of whose keys share that workspace's slot) and, when rate limiting is on, one
 * counter per key, in a pipeline when there is more than one command. Each request still waits for a round trip sent after it arrived, so it sees every
 * change committed before it, as with a command of its own; but N concurrent requests cost one. The batch
 * leaves on setImmediate, after the poll phase has read every request that had arrived.
 */
export class GateRoundTrip {
  /** Round trips sent so far (one per batch): a metric, and what tests hold the one-round-trip rule to. */
  count = 0;
  private readonly loader: DataLoader<GateQuery, GateReading>;

  constructor(
    private readonly redis: RedisClient,
    private readonly logger: Pick<Logger, 'warn'>,
  ) {
    redis.defineCommand('requestGate', { lua: script });
    redis.defineCommand('cancelGateCall', { numberOfKeys: 3, lua: cancelScript });
    this.loader = new DataLoader((queries) => this.send(queries), {
      cache: false,
      maxBatchSize: maxRequestsPerRoundTrip,
      batchScheduleFn: (dispatch) => setImmediate(dispatch),
    });
  }

  read(query: GateQuery): Promise<GateReading> {
    return this.loader.load(query);
  }

  private async send(queries: readonly GateQuery[]): Promise<(GateReading | Error)[]> {
    const byWorkspace = new Map<string, { query: GateQuery; i: number }[]>();
    queries.forEach((query, i) => {
      const group = byWorkspace.get(query.workspaceId);
      if (group) group.push({ query, i });
      else byWorkspace.set(query.workspaceId, [{ query, i }]);
    });
    // Each rate counter once, raised by the number of its requests; each request then takes its own place in it.
    const rateKeys = new Map<string, RateCounter>();
    const rateCounter: RateCounter[] = [];
    const ratePlace: number[] = [];
    queries.forEach((query, i) => {
      if (query.minute === undefined) return;
      const key = redisKeys.rateLimit(query.keyHash, query.minute);
      const counter = rateKeys.get(key) ?? { at: rateKeys.size, requests: 0 };
      rateKeys.set(key, counter);
      rateCounter[i] = counter;
      ratePlace[i] = counter.requests++;
    });
    const fresh = randomUUID();
    const scripts: { key: string; args: (string | number)[] }[] = [];
    for (const [workspaceId, group] of byWorkspace) {
      const { period, day } = group[0].query;
      const keys = [
        redisKeys.authEpoch(workspaceId), redisKeys.graphGeneration(workspaceId), redisKeys.quota(workspaceId, period), redisKeys.quotaLimit(workspaceId),
        redisKeys.quotaDay(workspaceId, day), redisKeys.bookmarks(workspaceId), redisKeys.gateCall(workspaceId, fresh),
      ];
      const args: (string | number)[] = [];
      for (const { query } of group) {
        const mark = redisKeys.revokedKey(workspaceId, query.keyHash);
        let at = keys.indexOf(mark, 7);
        if (at < 0) at = keys.push(mark) - 1;
        args.push(at + 1, query.metered ? 1 : 0);
      }
      scripts.push({ key: keys[0], args: [keys.length, ...keys, counterTtlSeconds, fresh, callRecordTtlSeconds, ...args] });
    }
    this.count += 1;
    let results: [Error | null, unknown][];
    if (scripts.length === 1 && rateKeys.size === 0) {
      // The usual turn (one workspace, no rate limit) needs no pipeline around its one command.
      results = [await (this.redis as RedisClient & GateCommand).requestGate(...scripts[0].args).then((reply) => [null, reply] as [null, Reply], (err: Error) => [err, null] as [Error, null])];
    } else {
      // On a Redis Cluster the commands go to their own nodes, each node's share in one pipeline, all at once.
      results = await pipelineEach(this.redis, [
        ...scripts.map(({ key, args }) => ({ key, add: (p: ChainableCommander) => (p as ChainableCommander & GateCommand).requestGate(...args) })),
        ...[...rateKeys].map(([key, { requests }]) => ({ key, replies: 2, add: (p: ChainableCommander) => p.incrby(key, requests).expire(key, rateTtlSeconds) })),
      ]).catch((err: Error) => [...scripts, ...rateKeys.keys(), ...rateKeys.keys()].map(() => [err, null] as [Error, null]));
    }

    // The replies are read in place: each request's reading is the one object made for it.
    const readings: (GateReading | Error)[] = new Array(queries.length);
    const rateBase = scripts.length;
    let at = 0;
    for (const group of byWorkspace.values()) {
      const [err, reply] = results[at++] as [Error | null, Reply];
      if (err) {
        for (const { i } of group) readings[i] = err;
        // Its requests are answered 503, but Redis may still run the call (a stalled server resumes): take it back.
        if (group.some(({ query }) => query.metered)) this.cancel(group[0].query, fresh);
        continue;
      }
      const [epoch, generation, bookmarks] = reply;
      for (let n = 0; n < group.length; n++) {
        const { i } = group[n];
        const answer = reply[3 + n] as RequestReply;
        let requestsThisMinute: number | undefined;
        const counter = rateCounter[i];
        if (counter) {
          const [rateErr, total] = results[rateBase + 2 * counter.at] as [Error | null, number];
          if (rateErr) {
            readings[i] = rateErr;
            continue;
          }
          requestsThisMinute = total - counter.requests + ratePlace[i] + 1;
        }
        readings[i] = { epoch, generation, bookmarks, revoked: answer[0] === 1, quota: { state: answer[1], used: answer[2], limit: answer[3] }, requestsThisMinute };
      }
    }
    return readings;
  }

  /**
   * Takes back what the call `callId` of the workspace counted, or will count when Redis runs it
   * (redis/cancel-gate-call.lua), sending the cancel again until Redis answers it: taking back twice is harmless.
   */
  private cancel({ workspaceId, period, day }: GateQuery, callId: string): void {
    const args = [redisKeys.quota(workspaceId, period), redisKeys.quotaDay(workspaceId, day), redisKeys.gateCall(workspaceId, callId), cancelledTtlSeconds];
    const giveUpAt = Date.now() + (cancelledTtlSeconds * 1000) / 2;
    const attempt = async (delay: number): Promise<void> => {
      try {
        await (this.redis as RedisClient & CancelCommand).cancelGateCall(...args);
      } catch (err) {
        if (Date.now() > giveUpAt) {
          this.logger.warn({ err, workspaceId }, 'could not cancel a gate call that timed out: its retrievals may stay counted');
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, delay).unref());
        return attempt(Math.min(delay * 2, cancelRetryMs.most));
      }
    };
    void attempt(cancelRetryMs.first);
  }
}
