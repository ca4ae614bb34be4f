/**
 * What is measured and on what: the checkout whose API runs (--api-dir, by default this one) and the machine.
 * Everything else (data, load drivers, baselines, Neo4j, Redis) is always this checkout's, so that an older commit
 * and the current one are measured by the same harness on the same data.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { projectRoot } from '../src/infra/project-root.js';

export interface Checkout {
  dir: string;
  /** The built entry point the API process runs. */
  serverJs: string;
  /** The commit, and whether src/, cypher/ or redis/ differ from it; BENCH_REVISION names it for a `git archive` copy. */
  revision: string;
  isHarness: boolean;
}

export function prepareCheckout(dir: string, build: boolean): Checkout {
  const abs = path.resolve(dir);
  if (!existsSync(path.join(abs, 'cypher', 'queries'))) throw new Error(`--api-dir ${abs}: no cypher/queries there; is it a checkout of this project?`);
  if (build) {
    console.log(`building the API in ${abs} (npm run build)`);
    if (spawnSync('npm', ['run', 'build', '--silent'], { cwd: abs, stdio: 'inherit' }).status !== 0) throw new Error(`npm run build failed in ${abs}`);
  }
  const serverJs = path.join(abs, 'dist', 'src', 'server.js');
  if (!existsSync(serverJs)) throw new Error(`${serverJs} is missing: build it (leave out --no-build)`);
  return { dir: abs, serverJs, revision: revisionOf(abs), isHarness: abs === projectRoot };
}

function revisionOf(dir: string): string {
  if (process.env.BENCH_REVISION) return process.env.BENCH_REVISION;
  const head = spawnSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: dir, encoding: 'utf8' });
  if (head.status !== 0) return 'unknown (not a git checkout; set BENCH_REVISION)';
  const dirty = spawnSync('git', ['status', '--porcelain', '--', 'src', 'cypher', 'redis'], { cwd: dir, encoding: 'utf8' }).stdout.trim();
  return head.stdout.trim() + (dirty ? ' (src/, cypher/ or redis/ changed since)' : '');
}

/**
 * A statement as the checkout's built service sends it, from that checkout's own catalog: an older one may treat
 * comments otherwise (it had no toSend).
 */
export async function sentText(checkout: Checkout, name: string): Promise<string> {
  const mod = await import(pathToFileURL(path.join(checkout.dir, 'dist', 'src', 'infra', 'cypher-files.js')).href);
  const catalog = new mod.QueryCatalog(path.join(checkout.dir, 'cypher', 'queries'));
  return catalog.toSend ? catalog.toSend(name) : catalog.get(name);
}

export function machine() {
  const java = spawnSync('java', ['-version'], { encoding: 'utf8' });
  return {
    cpus: `${os.availableParallelism()} × ${/^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? os.cpus()[0]?.model}`,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    java: (java.stderr || java.stdout || '').split('\n')[0]?.trim(),
    redis: spawnSync('redis-server', ['--version'], { encoding: 'utf8' }).stdout?.trim().split(' ').slice(0, 3).join(' '),
    loadAverage: os.loadavg().map((x) => x.toFixed(1)).join(' '),
  };
}
