/**
 * The processes of a run, each its own OS process on a known port: Neo4j and Redis, the API twice (cache off
 * for the uncached figures, cache on for the rest), and the bare Koa baselines (bench/baselines.ts). Every
 * server process is watched for RSS and CPU, and every one is stopped when the run ends, however it ends.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import type { Driver } from 'neo4j-driver';
import { createDriver } from '../src/infra/neo4j.js';
import { serverNodeFlags } from '../src/infra/node-flags.js';
import { projectRoot } from '../src/infra/project-root.js';
import type { ApiCheckout } from './api-checkout.js';
import { CpuMeter, PortPool, type Proc, RssSampler, startNeo4jOn, startNodeServer, startRedisOn } from './deps.js';
import { DATABASE } from './floor.js';
import type { Server } from './scenarios.js';

export type BaselineServer = Exclude<Server, 'driver' | 'api-cache-off' | 'api-cache-on'>;

/** The mode of bench/baselines.ts each baseline process runs. */
const BASELINE_MODE: Record<BaselineServer, 'constant' | 'bytes' | 'redis' | 'redis-bytes'> = {
  'bare-koa-constant': 'constant',
  'bare-koa-constant-2': 'constant',
  'bare-koa-bytes': 'bytes',
  'bare-koa-redis': 'redis',
  'bare-koa-redis-bytes': 'redis-bytes',
};

export class Stack {
  readonly sampler = new RssSampler(250);
  readonly meter = new CpuMeter();
  private readonly procs: Proc[] = [];
  private readonly ports: PortPool;
  private stopping = false;
  driver?: Driver;
  neo4j?: Proc;
  redis?: Proc;

  constructor(private readonly o: { portFrom: number; logDir: string }) {
    this.ports = new PortPool(o.portFrom);
  }

  /** Neo4j (the project's embedded launcher) and a Redis with no persistence, and a driver set up as the service's. */
  async startStores(o: { dataDir: string; heap: string; pageCacheMb: number }): Promise<{ driver: Driver; neo4jVersion: string }> {
    this.neo4j = await startNeo4jOn({ port: await this.ports.take(), home: path.join(o.dataDir, 'neo4j'), heap: o.heap, pageCacheMb: o.pageCacheMb, logFile: path.join(this.o.logDir, 'neo4j.log') });
    this.procs.push(this.neo4j);
    const redisDir = path.join(o.dataDir, 'redis');
    rmSync(redisDir, { recursive: true, force: true });
    this.redis = await startRedisOn({ port: await this.ports.take(), dir: redisDir, logFile: path.join(this.o.logDir, 'redis.log') });
    this.procs.push(this.redis);
    this.meter.watch('neo4j', this.neo4j.pid);
    this.meter.watch('redis', this.redis.pid);
    // The service's own driver settings (src/infra/neo4j.ts), so that the floor makes the calls the service makes.
    this.driver = createDriver({ uri: this.neo4j.url, username: 'neo4j', password: 'neo4j', database: DATABASE });
    await this.driver.verifyConnectivity({ database: DATABASE });
    const neo4jVersion = (await this.driver.executeQuery('CALL dbms.components() YIELD versions RETURN versions[0] AS v', {}, { database: DATABASE })).records[0].get('v');
    return { driver: this.driver, neo4jVersion };
  }

  private async startServer(name: string, args: string[], env: NodeJS.ProcessEnv, readyPath: string, cwd?: string, startTimeoutMs?: number): Promise<Proc> {
    const port = await this.ports.take();
    const p = await startNodeServer({ name, port, args: args.map((a) => a.replace('{port}', String(port))), env: { ...env, PORT: String(port) }, readyPath, logFile: path.join(this.o.logDir, `${name}.log`), cwd, startTimeoutMs });
    this.procs.push(p);
    this.sampler.watch(name, p.pid);
    this.meter.watch(name, p.pid);
    return p;
  }

  /** The API of the checkout under test, with the V8 flags `npm start` gives it. */
  startApi(
    name: 'api-cache-off' | 'api-cache-on' | 'api-writes' | 'api-import' | 'api-audit' | 'api-no-audit' | 'api-write-throughput',
    o: { checkout: ApiCheckout; adminToken: string; dataDir: string; cpuProfDir?: string; env?: NodeJS.ProcessEnv },
  ): Promise<Proc> {
    const env: NodeJS.ProcessEnv = { ...process.env };
    // Settings of the caller's shell that would change what is measured.
    for (const k of ['RATE_LIMIT_PER_KEY_PER_MINUTE', 'METRICS_TOKEN', 'NEO4J_DATABASE', 'NEO4J_USERNAME', 'NEO4J_PASSWORD', 'BUNDLE_CACHE_MAX_BYTES']) delete env[k];
    Object.assign(env, {
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      NEO4J_URI: this.neo4j!.url,
      REDIS_URL: this.redis!.url,
      ADMIN_TOKEN: o.adminToken,
      LOG_LEVEL: 'warn',
      BUNDLE_CACHE: name === 'api-cache-off' ? 'off' : 'on',
      DATA_DIR: path.join(o.dataDir, 'api'),
      ...o.env,
    });
    const prof = o.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${o.cpuProfDir}`, `--cpu-prof-name=${name}.cpuprofile`] : [];
    // The API's first start on a generated workspace stores a token count on every node (the start-up backfill of
    // src/nodes: the generator writes none), long on the largest workspace; later starts find nothing to count.
    return this.startServer(name, [...serverNodeFlags, ...prof, o.checkout.serverJs], env, '/healthz', o.checkout.dir, 20 * 60_000);
  }

  /**
   * A bare Koa baseline. It runs with the API's V8 flags too, so that a ceiling differs from the API only in
   * its code. `bytesFile` is needed by the modes that answer the service's bytes.
   */
  startBaseline(name: BaselineServer, bytesFile?: string): Promise<Proc> {
    const mode = BASELINE_MODE[name];
    const rest = mode === 'bytes' ? [bytesFile!] : mode === 'redis' ? [this.redis!.url] : mode === 'redis-bytes' ? [bytesFile!, this.redis!.url] : [];
    const args = [...serverNodeFlags, '--import', 'tsx', path.join(projectRoot, 'bench', 'baselines.ts'), mode, '{port}', ...rest];
    return this.startServer(name, args, process.env, '/ready');
  }

  async stop(p: Proc): Promise<void> {
    await p.stop();
    this.meter.unwatch(p.name);
    this.procs.splice(this.procs.indexOf(p), 1);
  }

  async stopAll(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.sampler.stop();
    await this.driver?.close().catch(() => undefined);
    // Servers first (they hold connections to the stores), then Redis and Neo4j.
    for (const p of [...this.procs].reverse()) await p.stop().catch(() => undefined);
  }
}

/**
 * A run on stores of its own: a fresh Neo4j store and Redis under <dataDir>/<name> (wiped first), stopped
 * however `work` ends (an interrupt too). For the single-purpose runs (--write-stalls, --writes, --import, --audit).
 */
export async function onFreshStores<R>(
  o: { portFrom: number; dataDir: string; logDir: string; heap: string; pageCacheMb: number; name: string },
  work: (stack: Stack, dataDir: string) => Promise<R>,
): Promise<R> {
  const dataDir = path.join(o.dataDir, o.name);
  rmSync(dataDir, { recursive: true, force: true });
  const stack = new Stack({ portFrom: o.portFrom, logDir: o.logDir });
  process.once('SIGINT', () => void stack.stopAll().then(() => process.exit(130)));
  process.once('SIGTERM', () => void stack.stopAll().then(() => process.exit(143)));
  try {
    const { neo4jVersion } = await stack.startStores({ dataDir, heap: o.heap, pageCacheMb: o.pageCacheMb });
    console.log(`neo4j ${neo4jVersion} ${stack.neo4j!.url} (fresh store in ${dataDir}), redis ${stack.redis!.url}`);
    return await work(stack, dataDir);
  } finally {
    await stack.stopAll();
  }
}
