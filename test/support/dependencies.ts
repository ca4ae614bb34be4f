import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startNeo4j, startRedis } from '../../src/infra/local-deps.js';
import type { RedisTarget } from '../../src/infra/redis.js';
import { type RedisClusterServers, type RedisSentinelServers, startRedisCluster, startRedisSentinel } from './redis-topologies.js';

export interface TestDependencies {
  neo4jUri: string;
  /** The run's Redis: one server, or what TEST_REDIS=cluster|sentinel started. */
  redis: RedisTarget;
  /** The settings that name it, for API processes the tests start. */
  redisEnv: Record<string, string>;
  /** The cluster's or the sentinels' servers, when the run uses them (a test may stop a master). */
  redisCluster?: RedisClusterServers;
  redisSentinel?: RedisSentinelServers;
  how: string;
  stop(): Promise<void>;
}

const server = (url: string) => ({ redis: url, redisEnv: { REDIS_URL: url } });

function dockerAvailable(): boolean {
  const probe = spawnSync('docker', ['info'], { stdio: 'ignore', timeout: 10_000 });
  return !probe.error && probe.status === 0;
}

async function withTestcontainers(): Promise<TestDependencies> {
  const { GenericContainer, Wait } = await import('testcontainers');
  const [neo4j, redis] = await Promise.all([
    new GenericContainer('neo4j:5.26-community')
      .withEnvironment({ NEO4J_AUTH: 'none', NEO4J_dbms_security_allow__csv__import__from__file__urls: 'false', NEO4J_db_memory_transaction_max: '256m' })
      .withExposedPorts(7687)
      .withWaitStrategy(Wait.forLogMessage('Started.'))
      .start(),
    new GenericContainer('redis:7').withCommand(['redis-server', '--appendonly', 'yes']).withExposedPorts(6379).start(),
  ]);
  return {
    neo4jUri: `bolt://${neo4j.getHost()}:${neo4j.getMappedPort(7687)}`,
    ...server(`redis://${redis.getHost()}:${redis.getMappedPort(6379)}`),
    how: 'testcontainers',
    stop: async () => void (await Promise.all([neo4j.stop(), redis.stop()])),
  };
}

/** TEST_REDIS=cluster: a 3-master Redis Cluster with a replica each; sentinel: a master, a replica and three sentinels. */
async function startRedisTopology(kind: string, dataDir: string): Promise<Omit<TestDependencies, 'neo4jUri' | 'how'>> {
  if (kind === 'cluster') {
    const cluster = await startRedisCluster(dataDir);
    return { redis: { cluster: cluster.nodes }, redisEnv: { REDIS_CLUSTER_NODES: cluster.nodesSetting }, redisCluster: cluster, stop: () => cluster.stop() };
  }
  if (kind === 'sentinel') {
    const sentinel = await startRedisSentinel(dataDir);
    return {
      redis: { sentinels: sentinel.sentinels, name: sentinel.name },
      redisEnv: { REDIS_SENTINELS: sentinel.sentinelsSetting, REDIS_SENTINEL_NAME: sentinel.name },
      redisSentinel: sentinel,
      stop: () => sentinel.stop(),
    };
  }
  const redis = await startRedis({ dataDir });
  return { ...server(redis.url), stop: () => redis.stop() };
}

/**
 * Real Neo4j and Redis for the whole test run: the servers named by NEO4J_URI / REDIS_URL when set,
 * containers when Docker is there, otherwise the project's own launcher with a throw-away data folder (and,
 * with TEST_REDIS=cluster or sentinel, a Redis Cluster or a Sentinel set-up on loopback).
 */
export async function startTestDependencies(): Promise<TestDependencies> {
  const givenNeo4j = process.env.NEO4J_URI || undefined;
  const givenRedis = process.env.REDIS_URL || undefined;
  const topology = process.env.TEST_REDIS ?? 'server';
  if (givenNeo4j && givenRedis) {
    return { neo4jUri: givenNeo4j, ...server(givenRedis), how: 'NEO4J_URI and REDIS_URL', stop: async () => {} };
  }
  if (!givenNeo4j && !givenRedis && topology === 'server' && dockerAvailable()) return withTestcontainers();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'playbooks-test-'));
  const [neo4j, redis] = await Promise.all([
    givenNeo4j ? undefined : startNeo4j({ dataDir, heap: '1g', pageCacheMb: 256 }),
    givenRedis ? undefined : startRedisTopology(topology, dataDir),
  ]);
  return {
    neo4jUri: givenNeo4j ?? neo4j!.url,
    ...(redis ?? server(givenRedis!)),
    how: `embedded Neo4j launcher and ${givenRedis ? 'REDIS_URL' : topology === 'server' ? 'redis-server' : `a Redis ${topology}`}`,
    stop: async () => {
      await Promise.all([neo4j?.stop(), redis?.stop()]);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
