import { loadConfig, type Config } from '../../src/config.js';
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
    REDIS_URL: env.deps.redisUrl,
    SHUTDOWN_GRACE_MS: '2000',
    ...overrides,
  });
}

/** Another API process-in-miniature (own driver, Redis connections and caches) for tests that need two. */
export async function startExtraService(overrides: NodeJS.ProcessEnv = {}, options: Parameters<typeof startService>[3] = {}): Promise<RunningService> {
  const config = testConfig(overrides);
  return startService(config, createLogger(config.logLevel), env.deps, { validateResponses: true, ...options });
}
