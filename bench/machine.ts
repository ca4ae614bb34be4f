/** What a result was measured on: the machine, and the commit of the code under test. */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';

export interface MachineInfo {
  nproc: number;
  cpuModel: string;
  memoryGiB: number;
  kernel: string;
  node: string;
  java?: string;
  redis: string;
  loadAverageAtStart: number[];
}

export const loadAverage = () => os.loadavg().map((x) => Math.round(x * 100) / 100);

export function machine(): MachineInfo {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
  const model = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1] ?? os.cpus()[0]?.model ?? 'unknown';
  const java = spawnSync('java', ['-version'], { encoding: 'utf8' });
  const redis = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  return {
    nproc: os.availableParallelism(),
    cpuModel: model,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    kernel: `${os.type()} ${os.release()}`,
    node: process.version,
    java: (java.stderr || java.stdout || '').split('\n')[0]?.trim(),
    redis: (redis.stdout || '').trim().split(' ').slice(0, 3).join(' '),
    loadAverageAtStart: loadAverage(),
  };
}

export interface Revision {
  commit: string;
  /** src/, cypher/ or redis/ differ from the commit. */
  dirty: boolean;
}

/**
 * The commit checked out in `dir` (read-only git calls), or `given` where the caller knows it: a copy made with
 * `git archive` is not a checkout.
 */
export function revision(dir: string, given?: string): Revision | undefined {
  if (given) return { commit: given, dirty: false };
  const head = spawnSync('git', ['rev-parse', 'HEAD'], { cwd: dir, encoding: 'utf8' });
  if (head.status !== 0) return undefined;
  const status = spawnSync('git', ['status', '--porcelain', '--', 'src', 'cypher', 'redis'], { cwd: dir, encoding: 'utf8' });
  return { commit: head.stdout.trim(), dirty: status.stdout.trim().length > 0 };
}

export const describeRevision = (r: Revision | undefined) => (r ? `${r.commit.slice(0, 12)}${r.dirty ? ' (src/, cypher/ or redis/ changed since)' : ''}` : 'unknown (not a git checkout)');
