/**
 * `npm run bench -- --shell`: how long the analysts' Cypher shell takes to start. The package the API serves
 * (/downloads/playbooks-cypher.tgz) is installed into an empty folder as a user would, then each command runs
 * once to warm the file cache and RUNS times measured: `--help` (start-up alone) and `-e 'RETURN 1'` (to its first
 * answer on stdout, and to its exit), beside the service's own share of that answer (its elapsedMs: the query's
 * process, its EXPLAIN and the query). The same through `npm run cypher` (the repository's sources under tsx), for
 * comparison.
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from '../src/infra/project-root.js';
import type { Checkout } from './checkout.js';
import { percentile } from './load.js';
import type { Options } from './options.js';
import { fmt, table } from './report.js';
import type { Stack } from './stack.js';

const RUNS = 10;

interface Timing {
  /** From the spawn to the first byte on stdout. */
  firstOutputMs: number;
  exitMs: number;
  stdout: string;
}

/** One run of a command: when its first output came and when it ended; a failure stops the bench. */
function timed(s: Scenario, env: NodeJS.ProcessEnv): Promise<Timing> {
  const { command, args, cwd } = s;
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let firstOutputMs = Number.NaN;
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      if (Number.isNaN(firstOutputMs)) firstOutputMs = performance.now() - started;
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`${command} ${args.join(' ')} ended with ${code}: ${stderr}`));
      resolve({ firstOutputMs, exitMs: performance.now() - started, stdout });
    });
  });
}

interface Scenario {
  name: string;
  command: string;
  args: string[];
  cwd: string;
  /** The answer holds the service's elapsedMs (JSON format). */
  answers: boolean;
}

export async function runShell(o: Options, stack: Stack, checkout: Checkout) {
  await stack.startStores({ dataDir: o.dataDir, heap: o.neo4jHeap, pageCacheMb: o.pageCacheMb });
  const adminToken = randomBytes(24).toString('hex');
  const api = await stack.startApi('api', { checkout, adminToken, dataDir: o.dataDir });
  const home = mkdtempSync(path.join(os.tmpdir(), 'bench-shell-'));
  try {
    writeFileSync(path.join(home, 'package.json'), JSON.stringify({ name: 'bench-shell', private: true }));
    const install = performance.now();
    await promisify(execFile)('npm', ['install', '--no-audit', '--no-fund', `${api.url}/downloads/playbooks-cypher.tgz`], { cwd: home });
    console.log(`\n== the shell's start-up: playbooks-cypher installed from ${api.url}/downloads/ in ${fmt((performance.now() - install) / 1000)} s; ${RUNS} runs each after 1 warm-up`);
    const installed = path.join(home, 'node_modules', '.bin', 'playbooks-cypher');
    const query = ['-e', 'RETURN 1 AS one', '--format', 'json'];
    const npmCypher = ['run', '--silent', 'cypher', '--'];
    const scenarios: Scenario[] = [
      { name: 'playbooks-cypher --help', command: installed, args: ['--help'], cwd: home, answers: false },
      { name: "playbooks-cypher -e 'RETURN 1'", command: installed, args: query, cwd: home, answers: true },
      { name: 'npm run cypher -- --help', command: 'npm', args: [...npmCypher, '--help'], cwd: projectRoot, answers: false },
      { name: "npm run cypher -- -e 'RETURN 1'", command: 'npm', args: [...npmCypher, ...query], cwd: projectRoot, answers: true },
    ];
    const env = { PATH: process.env.PATH ?? '', HOME: home, API_URL: api.url, ADMIN_TOKEN: adminToken };
    const rows: string[][] = [];
    const results = [];
    for (const s of scenarios) {
      const runs: Timing[] = [];
      for (let i = 0; i < 1 + RUNS; i++) {
        const t = await timed(s, env);
        if (i > 0) runs.push(t);
      }
      const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
      const first = sorted(runs.map((r) => r.firstOutputMs));
      const exit = sorted(runs.map((r) => r.exitMs));
      const service = s.answers ? sorted(runs.map((r) => (JSON.parse(r.stdout) as { elapsedMs: number }).elapsedMs)) : [];
      const r = {
        scenario: s.name,
        firstOutputP50: percentile(first, 0.5), firstOutputMax: first[first.length - 1],
        exitP50: percentile(exit, 0.5), exitMax: exit[exit.length - 1],
        serviceP50: s.answers ? percentile(service, 0.5) : undefined,
      };
      results.push(r);
      rows.push([r.scenario, fmt(r.firstOutputP50, 0), fmt(r.firstOutputMax, 0), fmt(r.exitP50, 0), fmt(r.exitMax, 0), fmt(r.serviceP50, 0)]);
      console.log(`  ${r.scenario.padEnd(34)} first output p50 ${fmt(r.firstOutputP50, 0).padStart(5)} ms, exit p50 ${fmt(r.exitP50, 0).padStart(5)} ms`);
    }
    const head = ['command', 'first output p50 ms', 'max ms', 'exit p50 ms', 'max ms', 'of which the service p50 ms'];
    const out = (markdown: boolean) => table(head, rows, markdown, 'lrrrrr');
    console.log(['', "== the shell's start-up (first output of -e is its answer)", ...out(false)].join('\n'));
    return { md: ['', "### The Cypher shell's start-up", '', ...out(true)], json: { runs: RUNS, shell: results } };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
