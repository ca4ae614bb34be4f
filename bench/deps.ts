/**
 * The benchmark's own processes: Neo4j (the project's embedded launcher), redis-server, the API and the bare
 * Koa baselines, each a separate OS process on a port the runner chose (17900 and up), plus an RSS sampler.
 * src/infra/local-deps.ts picks random ports; the bench needs known ones, so it spawns the same launcher here.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { buildNeo4jLauncher, stopChild, waitForLine } from '../src/infra/local-deps.js';
import { projectRoot } from '../src/infra/project-root.js';

export interface Proc {
  name: string;
  child: ChildProcess;
  pid: number;
  url: string;
  stop(): Promise<void>;
}

/** True when nothing listens on 127.0.0.1:port. */
export function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/** Hands out free ports from `from` upwards (never below it), skipping those in use. */
export class PortPool {
  private next: number;
  constructor(from: number, private readonly to = from + 99) {
    this.next = from;
  }
  async take(): Promise<number> {
    while (this.next <= this.to) {
      const p = this.next++;
      if (await portFree(p)) return p;
    }
    throw new Error(`no free port left in ${this.to - 99}..${this.to}`);
  }
}

/** Sends a child's output to a log file (and keeps its pipes drained). */
function logTo(child: ChildProcess, file: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const out = createWriteStream(file, { flags: 'a' });
  child.stdout?.pipe(out);
  child.stderr?.pipe(out);
}

export async function startNeo4jOn(opts: { port: number; home: string; heap: string; pageCacheMb: number; logFile: string }): Promise<Proc> {
  buildNeo4jLauncher((m) => console.log(m));
  const launcherDir = path.join(projectRoot, 'neo4j-launcher');
  const classpath = [path.join(launcherDir, 'target', 'classes'), readFileSync(path.join(launcherDir, 'target', 'classpath.txt'), 'utf8').trim()].join(path.delimiter);
  mkdirSync(opts.home, { recursive: true });
  // stdin stays a pipe: the launcher exits when it closes, so Neo4j never outlives the runner.
  const child = spawn('java', [`-Xmx${opts.heap}`, '-XX:+UseG1GC', '-cp', classpath, 'dev.playbooks.neo4j.EmbeddedNeo4j', opts.home, String(opts.port), String(opts.pageCacheMb)], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  try {
    await waitForLine(child, /^READY /m, 'Neo4j', 180_000);
  } catch (err) {
    await stopChild(child);
    throw err;
  }
  logTo(child, opts.logFile);
  return { name: 'neo4j', child, pid: child.pid!, url: `bolt://127.0.0.1:${opts.port}`, stop: () => stopChild(child) };
}

export async function startRedisOn(opts: { port: number; dir: string; logFile: string }): Promise<Proc> {
  mkdirSync(opts.dir, { recursive: true });
  // No persistence: the bench's counters and generations need not survive it.
  const child = spawn('redis-server', ['--port', String(opts.port), '--bind', '127.0.0.1', '--dir', opts.dir, '--appendonly', 'no', '--save', '', '--daemonize', 'no'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await waitForLine(child, /Ready to accept connections/, 'redis-server', 30_000);
  logTo(child, opts.logFile);
  return { name: 'redis', child, pid: child.pid!, url: `redis://127.0.0.1:${opts.port}`, stop: () => stopChild(child) };
}

/** Polls GET url until it answers 200. */
export async function waitForHttp(url: string, child: ChildProcess, what: string, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`${what} exited with code ${child.exitCode}`);
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what} did not answer ${url} within ${timeoutMs / 1000}s`);
}

/** A Node process (the API or a baseline) on `port`, ready once `readyPath` answers 200. */
export async function startNodeServer(opts: {
  name: string;
  port: number;
  args: string[];
  env: NodeJS.ProcessEnv;
  readyPath: string;
  logFile: string;
  /** Working directory (default: this checkout). */
  cwd?: string;
  /** How long it may take to answer readyPath (60 s). */
  startTimeoutMs?: number;
}): Promise<Proc> {
  const child = spawn(process.execPath, opts.args, { cwd: opts.cwd ?? projectRoot, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
  logTo(child, opts.logFile);
  const url = `http://127.0.0.1:${opts.port}`;
  try {
    await waitForHttp(url + opts.readyPath, child, opts.name, opts.startTimeoutMs);
  } catch (err) {
    await stopChild(child, 'SIGKILL');
    throw err;
  }
  return { name: opts.name, child, pid: child.pid!, url, stop: () => stopChild(child) };
}

/** Resident set size of a process in bytes (VmRSS), or undefined once it is gone. */
export function rssOf(pid: number): number | undefined {
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Samples VmRSS of each watched process every `everyMs`: the peak over the whole run, and a window peak
 * that the runner resets around each measurement.
 */
export class RssSampler {
  private readonly watched = new Map<string, { pid: number; peak: number; windowPeak: number; last: number }>();
  private timer?: NodeJS.Timeout;

  constructor(private readonly everyMs = 250) {}

  watch(name: string, pid: number): void {
    this.watched.set(name, { pid, peak: 0, windowPeak: 0, last: 0 });
    this.sample();
  }

  start(): void {
    this.timer = setInterval(() => this.sample(), this.everyMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private sample(): void {
    for (const w of this.watched.values()) {
      const rss = rssOf(w.pid);
      if (rss === undefined) continue;
      w.last = rss;
      if (rss > w.peak) w.peak = rss;
      if (rss > w.windowPeak) w.windowPeak = rss;
    }
  }

  /** Starts a new window; returns nothing. */
  resetWindow(): void {
    this.sample();
    for (const w of this.watched.values()) w.windowPeak = w.last;
  }

  windowPeak(name: string): number | undefined {
    this.sample();
    return this.watched.get(name)?.windowPeak;
  }

  peaks(): Record<string, number> {
    this.sample();
    return Object.fromEntries([...this.watched].map(([name, w]) => [name, w.peak]));
  }
}

// ---------------------------------------------------------------------------------------------------------
// CPU accounting: on a shared 2-core machine, CPU time per request is steadier than requests/s, and the CPU
// taken by processes that are not the bench's says how noisy a measurement was.

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** utime + stime of a process (all its threads), in ms, or undefined once it is gone. */
export function cpuMsOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return undefined;
  }
}

/** Machine-wide CPU time from /proc/stat, in ms summed over all CPUs. */
function machineCpu(): { busy: number; total: number; steal: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0];
  const [user, nice, system, idle, iowait, irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
  const busy = user + nice + system + irq + softirq + (steal ?? 0);
  return { busy: busy * TICK_MS, total: (busy + idle + iowait) * TICK_MS, steal: (steal ?? 0) * TICK_MS };
}

export interface CpuSnapshot {
  machine: { busy: number; total: number; steal: number };
  procs: Record<string, number>;
  self: number;
}

export interface CpuDelta {
  /** CPU ms each bench process used over the interval. */
  procsMs: Record<string, number>;
  /** CPU ms of this process (the load driver: autocannon or the raw-driver loop). */
  selfMs: number;
  /** Share of the machine's capacity (all CPUs) busy with anything, %. */
  machineBusyPct: number;
  /** Share of the machine's capacity used by processes that are not the bench's, %. */
  foreignPct: number;
  /** Hypervisor steal, % of capacity. */
  stealPct: number;
}

export class CpuMeter {
  private readonly pids = new Map<string, number>();

  watch(name: string, pid: number): void {
    this.pids.set(name, pid);
  }

  unwatch(name: string): void {
    this.pids.delete(name);
  }

  snapshot(): CpuSnapshot {
    const procs: Record<string, number> = {};
    for (const [name, pid] of this.pids) {
      const ms = cpuMsOf(pid);
      if (ms !== undefined) procs[name] = ms;
    }
    const u = process.cpuUsage();
    return { machine: machineCpu(), procs, self: (u.user + u.system) / 1000 };
  }

  since(a: CpuSnapshot): CpuDelta {
    const b = this.snapshot();
    const procsMs: Record<string, number> = {};
    for (const name of Object.keys(b.procs)) if (a.procs[name] !== undefined) procsMs[name] = b.procs[name] - a.procs[name];
    const selfMs = Math.round(b.self - a.self);
    const total = b.machine.total - a.machine.total || 1;
    const busy = b.machine.busy - a.machine.busy;
    const ours = Object.values(procsMs).reduce((x, y) => x + y, 0) + selfMs;
    const pct = (x: number) => Math.round((x / total) * 1000) / 10;
    return { procsMs, selfMs, machineBusyPct: pct(busy), foreignPct: pct(Math.max(0, busy - ours)), stealPct: pct(b.machine.steal - a.machine.steal) };
  }
}
