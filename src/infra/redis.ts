import { type ChainableCommander, Cluster, Redis, type RedisOptions } from 'ioredis';
import type { Config, HostPort } from '../config.js';
import { AppError } from '../errors.js';

/** One server (a URL), a Redis Cluster (its start-up nodes) or a master watched by Sentinel. */
export type RedisTarget = string | { cluster: HostPort[] } | { sentinels: HostPort[]; name: string };

/** A connection to any of them: the service uses single-key commands, scripts on one hash tag and pipelines. */
export type RedisClient = Redis | Cluster;

/** The Redis the configuration names; `url` is the server the process started itself when it names none. */
export function redisTargetOf(config: Pick<Config, 'redisUrl' | 'redisCluster' | 'redisSentinel'>, url?: string): RedisTarget {
  if (config.redisCluster) return { cluster: config.redisCluster.nodes };
  if (config.redisSentinel) return { sentinels: config.redisSentinel.sentinels, name: config.redisSentinel.name };
  const target = config.redisUrl ?? url;
  if (!target) throw new Error('No Redis is configured');
  return target;
}

const failFast: RedisOptions = {
  lazyConnect: true,
  enableOfflineQueue: false,
  maxRetriesPerRequest: 1,
  commandTimeout: 2_000,
  connectTimeout: 2_000,
  retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  // The hot path's commands are coalesced into one round trip per event-loop turn already (src/gate);
  // ioredis's own pipelining would only defer them by one more turn.
  enableAutoPipelining: false,
};

/**
 * A Redis connection that fails fast: no offline queue and a command timeout, so that an unreachable
 * Redis turns into a 503 (or, for authentication, a fall-back to Neo4j) instead of hanging requests. `options`
 * override these (the webhook queue's connections wait instead).
 */
export function createRedis(target: RedisTarget, options: RedisOptions = {}): RedisClient {
  const redisOptions = { ...failFast, ...options };
  if (typeof target === 'string') return new Redis(target, redisOptions);
  if ('sentinels' in target) {
    // A failover moves the master: the connection asks the sentinels again and follows it.
    return new Redis({ ...redisOptions, sentinels: target.sentinels, name: target.name, sentinelRetryStrategy: (n) => Math.min(n * 200, 2_000) });
  }
  const { lazyConnect, enableOfflineQueue, enableAutoPipelining, ...perNode } = redisOptions;
  return new Cluster(target.cluster, {
    lazyConnect,
    enableOfflineQueue,
    enableAutoPipelining,
    redisOptions: perNode,
    clusterRetryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    // While a failover promotes a replica, MOVED and CLUSTERDOWN answers are retried a few times, then a 503.
    retryDelayOnFailover: 200,
    retryDelayOnClusterDown: 200,
    retryDelayOnTryAgain: 200,
    slotsRefreshTimeout: 2_000,
  });
}

/** One command (or a few on the same key) of a pipeline, with the key that decides where it goes. */
export interface PipelineCommand {
  key: string;
  add: (pipeline: ChainableCommander) => ChainableCommander;
  /** How many replies `add` makes (one by default). */
  replies?: number;
}

/**
 * Runs a pipeline's commands where they must go: on one server, as one pipeline; on a Redis Cluster, as one
 * pipeline per hash tag (a cluster pipeline may only reach one node, and one tag is one slot), all sent at once.
 * `key` names each command's key; `replies` how many replies its `add` makes. The replies come back in order.
 */
export async function pipelineEach(redis: RedisClient, commands: readonly PipelineCommand[]): Promise<[Error | null, unknown][]> {
  const groups = new Map<string, number[]>();
  commands.forEach((command, i) => {
    const node = redis instanceof Cluster ? hashTag(command.key) : '';
    const group = groups.get(node);
    if (group) group.push(i);
    else groups.set(node, [i]);
  });
  const replies: [Error | null, unknown][][] = new Array(commands.length);
  await Promise.all([...groups.values()].map(async (members) => {
    let pipeline = redis.pipeline();
    for (const i of members) pipeline = commands[i].add(pipeline);
    const results = await pipeline.exec();
    if (!results) throw new Error('Redis pipeline was discarded');
    let at = 0;
    for (const i of members) {
      const n = commands[i].replies ?? 1;
      replies[i] = results.slice(at, at + n) as [Error | null, unknown][];
      at += n;
    }
  }));
  return replies.flat();
}

/** The part of a key Redis Cluster hashes: the first `{…}` with something inside, else the whole key. */
function hashTag(key: string): string {
  const open = key.indexOf('{');
  const close = open < 0 ? -1 : key.indexOf('}', open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : key;
}

// The last three are a Redis Cluster's: no node answers, or a failover is still promoting a replica.
const unavailable = /ECONNREFUSED|ECONNRESET|EPIPE|Connection is closed|Stream isn't writeable|Command timed out|MaxRetriesPerRequest|Reached the max retries|Cluster isn't ready|None of startup nodes is available|CLUSTERDOWN|Failed to refresh slots cache/i;

export function isRedisUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  return err.name === 'MaxRetriesPerRequestError' || unavailable.test(err.message);
}

/** The service's 503 for an unreachable Redis. */
export function redisUnavailable(cause: unknown): AppError {
  return new AppError('service_unavailable', 'The cache and quota store cannot be reached', { headers: { 'Retry-After': '5' }, cause });
}

/** Runs Redis work, turning an unreachable Redis into the service's 503 (any other failure is left as it is). */
export async function guardRedis<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw isRedisUnavailable(err) ? redisUnavailable(err) : err;
  }
}

/** Runs commands (see pipelineEach) every one of which must succeed: the first failure fails them all (a 503 when Redis is unreachable). */
export async function execEach(redis: RedisClient, commands: readonly PipelineCommand[]): Promise<void> {
  if (commands.length === 0) return;
  const results = await guardRedis(() => pipelineEach(redis, commands));
  const failed = results.find(([err]) => err);
  if (failed) throw isRedisUnavailable(failed[0]) ? redisUnavailable(failed[0]) : failed[0];
}

/** Runs a pipeline whose every command must succeed: the first failure fails it all (a 503 when Redis is unreachable). */
export async function execAll(pipeline: ChainableCommander): Promise<void> {
  const results = await guardRedis(() => pipeline.exec());
  const failed = results?.find(([err]) => err);
  if (!results || failed) throw isRedisUnavailable(failed?.[0]) ? redisUnavailable(failed?.[0]) : (failed?.[0] ?? new Error('Redis pipeline was discarded'));
}
