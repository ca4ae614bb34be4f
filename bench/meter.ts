/**
 * RSS and CPU time of the bench's processes, read from /proc. On a shared machine CPU time per request is steadier
 * than requests/s, and the CPU taken by processes that are not the bench's says how noisy a measurement was.
 */
import { readFileSync } from 'node:fs';

/** USER_HZ is 100 on Linux: /proc counts CPU time in ticks of 10 ms. */
const TICK_MS = 10;

function rssOf(pid: number): number | undefined {
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** utime + stime of a process, all its threads, in ms. */
function cpuMsOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces: count the fields after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return undefined;
  }
}

/** The machine's CPU time over all CPUs, busy and in all, in ms. */
function machineCpu(): { busy: number; total: number } {
  const [user, nice, system, idle, iowait, irq, softirq, steal = 0] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const busy = user + nice + system + irq + softirq + steal;
  return { busy: busy * TICK_MS, total: (busy + idle + iowait) * TICK_MS };
}

export interface CpuSnapshot {
  procs: Record<string, number>;
  self: number;
  machine: { busy: number; total: number };
}

export interface CpuDelta {
  /** CPU ms each watched process used. */
  procsMs: Record<string, number>;
  /** CPU ms of the bench process itself: the load driver. */
  selfMs: number;
  /** The share of the machine's capacity taken by processes that are not the bench's, %. */
  foreignPct: number;
}

/** Watches named processes: RSS sampled a few times a second (peak of the run and of the current window), CPU on demand. */
export class Meter {
  private readonly watched = new Map<string, { pid: number; peak: number; windowPeak: number }>();
  private readonly timer = setInterval(() => this.sample(), 250).unref();

  watch(name: string, pid: number): void {
    this.watched.set(name, { pid, peak: 0, windowPeak: 0 });
    this.sample();
  }

  unwatch(name: string): void {
    this.watched.delete(name);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private sample(): void {
    for (const w of this.watched.values()) {
      const rss = rssOf(w.pid) ?? 0;
      w.peak = Math.max(w.peak, rss);
      w.windowPeak = Math.max(w.windowPeak, rss);
    }
  }

  /** Starts a new RSS window (a measurement). */
  resetWindow(): void {
    for (const w of this.watched.values()) w.windowPeak = 0;
    this.sample();
  }

  windowPeak(name: string): number | undefined {
    this.sample();
    return this.watched.get(name)?.windowPeak;
  }

  peaks(): Record<string, number> {
    this.sample();
    return Object.fromEntries([...this.watched].map(([name, w]) => [name, w.peak]));
  }

  snapshot(): CpuSnapshot {
    const procs: Record<string, number> = {};
    for (const [name, w] of this.watched) {
      const ms = cpuMsOf(w.pid);
      if (ms !== undefined) procs[name] = ms;
    }
    const u = process.cpuUsage();
    return { procs, self: (u.user + u.system) / 1000, machine: machineCpu() };
  }

  since(a: CpuSnapshot): CpuDelta {
    const b = this.snapshot();
    const procsMs = Object.fromEntries(Object.keys(b.procs).filter((n) => a.procs[n] !== undefined).map((n) => [n, b.procs[n] - a.procs[n]]));
    const selfMs = Math.round(b.self - a.self);
    const ours = Object.values(procsMs).reduce((x, y) => x + y, 0) + selfMs;
    const busy = b.machine.busy - a.machine.busy;
    const total = b.machine.total - a.machine.total || 1;
    return { procsMs, selfMs, foreignPct: Math.round((Math.max(0, busy - ours) / total) * 1000) / 10 };
  }
}
