/**
 * The processes of a run, each its own OS process on a port from --port-from up: Neo4j and Redis (started by
 * src/infra/local-deps.ts, as the service starts them), the API of the checkout under test and the bare Koa
 * baselines. Each is watched for RSS and CPU, and all are stopped when the run ends, however it ends.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { QueryCatalog } from '../src/infra/cypher-files.js';
import { startNeo4j, startRedis, stopChild } from '../src/infra/local-deps.js';
import type { GraphExecutor } from '../src/infra/neo4j.js';
import { type Stores, openStores } from '../src/infra/stores.js';
import { serverNodeFlags } from '../src/infra/node-flags.js';
import { projectRoot } from '../src/infra/project-root.js';
import type { Checkout } from './checkout.js';
import { Meter } from './meter.js';

export const DATABASE = 'neo4j';

export interface Proc {
  name: string;
  url: string;
  stop(): Promise<void>;
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

export class Stack {
  readonly meter = new Meter();
  private readonly procs: Proc[] = [];
  private nextPort: number;
  neo4jUrl = '';
  redisUrl = '';
  private stores?: Stores;
  /** The service's executor over its own catalog and the bench's statements (bench/cypher, named `bench/…`). */
  graph!: GraphExecutor;

  constructor(private readonly o: { portFrom: number; logDir: string }) {
    this.nextPort = o.portFrom;
    const interrupted = (code: number) => () => void this.stopAll().then(() => process.exit(code));
    process.once('SIGINT', interrupted(130));
    process.once('SIGTERM', interrupted(143));
  }

  private async port(): Promise<number> {
    for (; this.nextPort < this.o.portFrom + 100; ) {
      const p = this.nextPort++;
      if (await portFree(p)) return p;
    }
    throw new Error(`no free port left in ${this.o.portFrom}..${this.o.portFrom + 99}`);
  }

  private add(name: string, pid: number, url: string, stop: () => Promise<void>): Proc {
    const p = { name, url, stop };
    this.procs.push(p);
    this.meter.watch(name, pid);
    return p;
  }

  /** Neo4j and Redis with their data under dataDir (Redis's wiped: nothing of it outlives a run), migrated. */
  async startStores(o: { dataDir: string; heap: string; pageCacheMb: number }): Promise<void> {
    const neo4j = await startNeo4j({ dataDir: o.dataDir, heap: o.heap, pageCacheMb: o.pageCacheMb, port: await this.port(), log: console.log });
    this.neo4jUrl = this.add('neo4j', neo4j.pid, neo4j.url, neo4j.stop).url;
    rmSync(path.join(o.dataDir, 'redis'), { recursive: true, force: true });
    const redis = await startRedis({ dataDir: o.dataDir, port: await this.port() });
    this.redisUrl = this.add('redis', redis.pid, redis.url, redis.stop).url;
    // The service's own way to its stores, named as an API process of the run names them.
    const config = loadConfig({ NEO4J_URI: this.neo4jUrl, REDIS_URL: this.redisUrl, NEO4J_DATABASE: DATABASE });
    this.stores = await openStores(config, { queries: new QueryCatalog(undefined, undefined, { dir: path.join(projectRoot, 'bench', 'cypher'), prefix: 'bench/' }) });
    await this.stores.prepare();
    this.graph = this.stores.graph;
    console.log(`neo4j ${this.neo4jUrl} (data in ${o.dataDir}, heap ${o.heap}, page cache ${o.pageCacheMb} MB), redis ${this.redisUrl}`);
  }

  /** A Node process answering 200 at readyPath, its output in the run's log folder. */
  private async startNode(name: string, args: string[], env: NodeJS.ProcessEnv, readyPath: string, cwd = projectRoot): Promise<Proc> {
    const port = await this.port();
    const child: ChildProcess = spawn(process.execPath, args.map((a) => a.replace('{port}', String(port))), { cwd, env: { ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
    mkdirSync(this.o.logDir, { recursive: true });
    const log = createWriteStream(path.join(this.o.logDir, `${name}.log`), { flags: 'a' });
    child.stdout!.pipe(log);
    child.stderr!.pipe(log);
    const url = `http://127.0.0.1:${port}`;
    // The API's first start on a generated workspace stores names and token counts on every node: long on the largest.
    for (const until = Date.now() + 20 * 60_000; ; await new Promise((r) => setTimeout(r, 200))) {
      if (child.exitCode !== null || Date.now() > until) {
        await stopChild(child, 'SIGKILL');
        throw new Error(`${name} did not answer ${readyPath} (see ${path.join(this.o.logDir, `${name}.log`)})`);
      }
      if (await fetch(url + readyPath).then((r) => r.ok, () => false)) break;
    }
    return this.add(name, child.pid!, url, () => stopChild(child));
  }

  /** The API of the checkout under test with the V8 flags `npm start` gives it; `env` on top (BUNDLE_CACHE, AUDIT, …). */
  startApi(name: string, o: { checkout: Checkout; adminToken: string; dataDir: string; env?: NodeJS.ProcessEnv; cpuProfDir?: string }): Promise<Proc> {
    const env: NodeJS.ProcessEnv = { ...process.env };
    // Settings of the caller's shell that would change what is measured.
    for (const k of ['RATE_LIMIT_PER_KEY_PER_MINUTE', 'METRICS_TOKEN', 'NEO4J_DATABASE', 'NEO4J_USERNAME', 'NEO4J_PASSWORD', 'BUNDLE_CACHE_MAX_BYTES', 'AUDIT']) delete env[k];
    Object.assign(env, { NODE_ENV: 'production', HOST: '127.0.0.1', NEO4J_URI: this.neo4jUrl, REDIS_URL: this.redisUrl, ADMIN_TOKEN: o.adminToken, LOG_LEVEL: 'warn', DATA_DIR: path.join(o.dataDir, 'api'), ...o.env });
    const prof = o.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${o.cpuProfDir}`, `--cpu-prof-name=${name}.cpuprofile`] : [];
    return this.startNode(name, [...serverNodeFlags, ...prof, o.checkout.serverJs], env, '/healthz', o.checkout.dir);
  }

  /** A bare Koa baseline (bench/baselines.ts) with the API's V8 flags, so that it differs from the API only in its code. */
  startBaseline(name: string, bytesFile?: string, redisUrl?: string): Promise<Proc> {
    const args = [...serverNodeFlags, '--import', 'tsx', path.join(projectRoot, 'bench', 'baselines.ts'), '{port}', ...(bytesFile ? [bytesFile] : []), ...(redisUrl ? [redisUrl] : [])];
    return this.startNode(name, args, process.env, '/ready');
  }

  async stop(p: Proc): Promise<void> {
    await p.stop();
    this.meter.unwatch(p.name);
    this.procs.splice(this.procs.indexOf(p), 1);
  }

  /** Servers first (they hold connections to the stores), then Redis and Neo4j. */
  async stopAll(): Promise<void> {
    this.meter.stop();
    await this.stores?.close().catch(() => undefined);
    for (const p of this.procs.splice(0).reverse()) await p.stop().catch(() => undefined);
  }
}
