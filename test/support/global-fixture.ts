import { freePort } from '../../src/infra/local-deps.js';
import { createLogger, startService } from '../../src/runtime.js';
import { startTestDependencies } from './dependencies.js';
import { stopEmbeddingServer } from './embeddings.js';
import { env, testConfig } from './harness.js';

/** Mocha global fixtures: Neo4j, Redis and one API are started once for the whole run. */
export async function mochaGlobalSetup(): Promise<void> {
  const started = Date.now();
  env.deps = await startTestDependencies();
  // A known port, so that the authorization server's issuer (PUBLIC_URL) is the origin tests reach it at.
  const port = await freePort();
  env.config = testConfig({ PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` });
  env.service = await startService(env.config, createLogger(env.config.logLevel), { validateResponses: true });
  process.stdout.write(`  test dependencies: ${env.deps.how}, ready in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}

export async function mochaGlobalTeardown(): Promise<void> {
  await env.service?.stop();
  await stopEmbeddingServer();
  await env.deps?.stop();
}
