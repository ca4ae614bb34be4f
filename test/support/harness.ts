import { once } from 'node:events';
import pino from 'pino';
import { createApp } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createRedis, type RedisClient, type RedisTarget } from '../../src/infra/redis.js';
import { openStores, withEndpoints } from '../../src/infra/stores.js';
import { createServices } from '../../src/services.js';
import { type RunningService, createLogger, startService } from '../../src/runtime.js';
import type { TestDependencies } from './dependencies.js';

export const adminToken = 'test-admin-token-0123456789abcdef';
export const analystToken = 'test-analyst-token-0123456789abcdef';

/** What the global fixture started once for the whole run. */
export const env = {} as { deps: TestDependencies; service: RunningService; config: Config };

/** A config for an in-process API on a free port, against the run's Neo4j and Redis. */
export function testConfig(overrides: NodeJS.ProcessEnv = {}): Config {
  return loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    ADMIN_TOKEN: adminToken,
    ANALYST_TOKEN: analystToken,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    NEO4J_URI: env.deps.neo4jUri,
    // A test that names a Redis of its own (REDIS_URL) uses that one instead of the run's.
    ...(overrides.REDIS_URL ? {} : env.deps.redisEnv),
    SHUTDOWN_GRACE_MS: '2000',
    // Webhook receivers in tests listen on 127.0.0.1, and retries come within milliseconds.
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'on',
    SECRETS_KEY: 'test-secrets-key-0123456789abcdef-0123456789',
    WEBHOOK_RETRY_BASE_MS: '30',
    WEBHOOK_MAX_ATTEMPTS: '5',
    WEBHOOK_RELAY_INTERVAL_MS: '200',
    WEBHOOK_TIMEOUT_MS: '2000',
    // Every API of the run names the same authorization server, so a token issued through one works on all.
    ...(env.config ? { PUBLIC_URL: env.config.publicUrl } : {}),
    // Embeddings only where a test asks for them (test/support/embeddings.ts): the model's CPU is not every test's cost.
    ...(overrides.EMBEDDINGS_URL || overrides.EMBEDDINGS ? {} : { EMBEDDINGS: 'off' }),
    ...overrides,
  });
}

/** Another API process-in-miniature (own driver, Redis connections and caches) for tests that need two. */
export async function startExtraService(overrides: NodeJS.ProcessEnv = {}, options: Parameters<typeof startService>[2] = {}): Promise<RunningService> {
  const config = testConfig(overrides);
  return startService(config, createLogger(config.logLevel), { validateResponses: true, ...options });
}

/**
 * A second API process in this test process, on its own port, whose Neo4j and Redis are the given URLs (a
 * closed port, a relay, or the real ones). Redis is connected only when it is expected to answer.
 */
export async function apiWith(neo4jUri: string, redisTarget: RedisTarget, options: { redisUp: boolean; env?: NodeJS.ProcessEnv }): Promise<{ url: string; close: () => Promise<void> }> {
  const config = withEndpoints(testConfig(options.env), { neo4jUri, redis: redisTarget });
  const stores = await openStores(config);
  const { graph, redis } = stores;
  if (options.redisUp) await redis.connect();
  else redis.on('error', () => {});
  const app = createApp(createServices({ config, logger: pino({ level: 'silent' }), graph, redis }));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    close: async () => {
      server.close();
      await stores.close();
    },
  };
}

/**
 * Drops a Redis connection as an outage would, and waits until it is closed: ioredis refuses a connect() while the
 * connection it is closing still counts as connected.
 */
export async function dropRedis(redis: RedisClient): Promise<void> {
  if (redis.status === 'end') return;
  const ended = once(redis, 'end');
  redis.disconnect();
  await ended;
}

/** A connection of the test's own to the run's Redis (one server, cluster or sentinel), to look at its keys. */
export function testRedis(): RedisClient {
  return createRedis(env.deps.redis, { lazyConnect: false, enableOfflineQueue: true });
}
