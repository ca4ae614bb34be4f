import { createLogger, startService } from '../../src/runtime.js';
import { startTestDependencies } from './dependencies.js';
import { env, testConfig } from './harness.js';

/** Mocha global fixtures: Neo4j, Redis and one API are started once for the whole run. */
export async function mochaGlobalSetup(): Promise<void> {
  const started = Date.now();
  env.deps = await startTestDependencies();
  env.config = testConfig();
  env.service = await startService(env.config, createLogger(env.config.logLevel), env.deps, { validateResponses: true });
  process.stdout.write(`  test dependencies: ${env.deps.how}, ready in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}

export async function mochaGlobalTeardown(): Promise<void> {
  await env.service?.stop();
  await env.deps?.stop();
}
