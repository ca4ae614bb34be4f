import { type ChildProcess, spawn } from 'node:child_process';
import { freePort } from '../../src/infra/local-deps.js';
import { projectRoot } from '../../src/infra/project-root.js';
import { request } from './api.js';
import { adminToken, env } from './harness.js';

export interface ApiProcess {
  /** Its base URL, for `request(..., {baseUrl})`. */
  url: string;
  /** SIGTERM, then SIGKILL after 10 s; resolves with how the process ended (`signal` is SIGKILL if it had to be killed). */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL at once, as a crash would (nothing flushed, nothing released); resolves once it exited. */
  kill(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Another API as a real OS process (`node --import tsx src/server.ts`) against the run's Neo4j and Redis,
 * nothing in memory is shared with the test run's own service.
 * Resolves once it answers /readyz.
 */
export async function startApiProcess(extraEnv: NodeJS.ProcessEnv = {}): Promise<ApiProcess> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let output = '';
  // A process told of a Redis of its own uses that one instead of the run's, whatever this process's environment names.
  const ownRedis = Object.keys(extraEnv).some((k) => k.startsWith('REDIS_'));
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !(ownRedis && k.startsWith('REDIS_'))));
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: projectRoot,
    env: {
      ...inherited,
      NEO4J_URI: env.deps.neo4jUri,
      ...(ownRedis ? {} : env.deps.redisEnv),
      PORT: String(port),
      HOST: '127.0.0.1',
      ADMIN_TOKEN: adminToken,
      PUBLIC_URL: env.config.publicUrl,
      // The key the authorization server's keys are sealed with in Neo4j, as every process of a deployment shares it.
      SECRETS_KEY: env.config.secretsKey,
      LOG_LEVEL: 'warn',
      // Embeddings only where a test asks for them (test/support/embeddings.ts): the model's CPU is not every test's cost.
      ...(extraEnv.EMBEDDINGS_URL || extraEnv.EMBEDDINGS ? {} : { EMBEDDINGS: 'off' }),
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return { code: child.exitCode, signal: child.signalCode };
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.once('exit', (code, signal) => r({ code, signal })));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    const ended = await exited;
    clearTimeout(timer);
    return ended;
  };
  const kill = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return { code: child.exitCode, signal: child.signalCode };
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.once('exit', (code, signal) => r({ code, signal })));
    child.kill('SIGKILL');
    return exited;
  };
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the second API process exited (${child.exitCode}): ${output}`);
    try {
      if ((await request('GET', '/readyz', { baseUrl: url })).status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the second API process did not get ready: ${output}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { url, stop, kill };
}
