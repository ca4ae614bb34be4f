import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startNeo4j, startRedis } from '../../src/infra/local-deps.js';

export interface TestDependencies {
  neo4jUri: string;
  redisUrl: string;
  how: string;
  stop(): Promise<void>;
}

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
    redisUrl: `redis://${redis.getHost()}:${redis.getMappedPort(6379)}`,
    how: 'testcontainers',
    stop: async () => void (await Promise.all([neo4j.stop(), redis.stop()])),
  };
}

/**
 * Real Neo4j and Redis for the whole test run: the servers named by NEO4J_URI / REDIS_URL when set,
 * containers when Docker is there, otherwise the project's own launcher with a throw-away data folder.
 */
export async function startTestDependencies(): Promise<TestDependencies> {
  const givenNeo4j = process.env.NEO4J_URI || undefined;
  const givenRedis = process.env.REDIS_URL || undefined;
  if (givenNeo4j && givenRedis) {
    return { neo4jUri: givenNeo4j, redisUrl: givenRedis, how: 'NEO4J_URI and REDIS_URL', stop: async () => {} };
  }
  if (!givenNeo4j && !givenRedis && dockerAvailable()) return withTestcontainers();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'playbooks-test-'));
  const [neo4j, redis] = await Promise.all([
    givenNeo4j ? undefined : startNeo4j({ dataDir, heap: '1g', pageCacheMb: 256 }),
    givenRedis ? undefined : startRedis({ dataDir }),
  ]);
  return {
    neo4jUri: givenNeo4j ?? neo4j!.url,
    redisUrl: givenRedis ?? redis!.url,
    how: 'embedded Neo4j launcher and redis-server',
    stop: async () => {
      await Promise.all([neo4j?.stop(), redis?.stop()]);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
