/** The options of `npm run bench`, and its --help. */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { projectRoot } from '../src/infra/project-root.js';
import { DEFAULT_SCENARIOS, GROUPS, SCENARIO_NAMES, type Scenario, def, resolveScenarios } from './scenarios.js';

const HELP = `npm run bench -- [options]

Measures the API against its baselines and prints, last, one table: each target, its ratio, met or missed.
Starts its own Neo4j and Redis; the data stays in bench/.data and is reused. Results: bench/results/<stamp>.json and .md.

What is measured
  --sizes LIST         workspace sizes in context nodes              (1000,10000,100000)
  --clients LIST       concurrent clients                            (1,16,64)
  --scenarios LIST     scenario names and/or groups: ${GROUPS.join(', ')}, all   (${DEFAULT_SCENARIOS})
  --diagnostics        everything: all scenarios (unless --scenarios names them), the raw driver in the
                       cost-against-size run, and the first requests after the API starts
  --cpu-prof           write a V8 CPU profile of each API process (read it with bench/profile-summary.ts)
  --writes             instead of the above: writes/s, p50 and p95 of single writes into ONE workspace (node
                       creates, link creates, annotations, feedback) at 16 and 64 clients through the API (audit
                       on, a webhook subscription), beside the floor: the same Cypher statements through one
                       neo4j-driver, no API; then node creates with audit and outbox on against an ablated build
                       without them, in alternating rounds (--duration, --warmup, --rounds apply; targets: node
                       creates >= 300/s and >= 0.5 x the floor at 16 clients, audit+outbox cost < 15 %; own fresh
                       store under <data-dir>/write-throughput; a few minutes)
  --write-stalls       instead of the above: the longest event-loop delay of the API process while the
                       worst-case content of each bound of issue 28 is written, beside an ordinary write
                       (target < 50 ms; own fresh Neo4j store under <data-dir>/writes; about 30 s)
  --import             instead of the above: a generated vault of --import-files markdown files (10000, about
                       5 wikilinks each) through the folder import, in nodes/s beside the single-POST rate of
                       the same run, and the API's RSS (targets >= 1,000 nodes/s, < 300 MB; own fresh store
                       under <data-dir>/import; a few minutes)
  --audit              instead of the above (issue 34): node creation at 16 clients without audit (an ablated
                       copy of the build), with audit, and with audit and a webhook outbox, in alternating
                       rounds (--duration seconds each, --rounds rounds), then the dispatcher's deliveries/s
                       (target: cost < 15 %; own fresh store under <data-dir>/audit; about two minutes)

How long
  --duration S         measured seconds per scenario and client count (10), split over the rounds
  --warmup S           warm-up seconds before the first round (2)
  --quick              --duration 3 --warmup 1
  --rounds N           rounds a measurement is split into (2)

Saved reports instead (issue 30)
  --reports            time every saved report (cypher/reports) through the API on the largest size's
                       workspace, one request at a time, with the indexes each plan uses; bound: p95 <= 1 s
  --report-runs N      timed runs per report, after two warm-up runs (20)

What code
  --api-dir DIR        run the API of another checkout of this project (its dist/src/server.js, and its
                       cypher/ for the raw-driver floor); everything else stays this checkout's   (.)
  --no-build           do not run \`npm run build\` in that checkout first
  env BENCH_REVISION   the commit of an --api-dir that is not a git checkout (a \`git archive\` copy)

Where
  --data-dir DIR       Neo4j store, generated-workspace catalogue, logs (bench/.data)
  --port-from N        first of the ports used (17900)
  --neo4j-heap SIZE    (2g)      --page-cache-mb N (1024)      --seed N  data generator seed (1)

Compare two commits in one session (the same data, the same harness):
  git worktree add ../bench-old <commit> && ln -s "$PWD/node_modules" ../bench-old/node_modules
  npm run bench -- --sizes 10000 --api-dir ../bench-old
  npm run bench -- --sizes 10000
  npx tsx bench/compare.ts bench/results/<old>.json bench/results/<new>.json

Scenarios (group):
${SCENARIO_NAMES.map((s) => `  ${s.padEnd(22)} ${def(s).group.padEnd(12)} ${def(s).why}`).join('\n')}
`;

export interface Options {
  sizes: number[];
  clients: number[];
  scenarios: Scenario[];
  diagnostics: boolean;
  durationS: number;
  warmupS: number;
  rounds: number;
  seed: number;
  dataDir: string;
  portFrom: number;
  neo4jHeap: string;
  pageCacheMb: number;
  apiDir: string;
  build: boolean;
  cpuProf: boolean;
  reports: boolean;
  reportRuns: number;
  writes: boolean;
  writeStalls: boolean;
  import: boolean;
  importFiles: number;
  audit: boolean;
}

export function parseOptions(argv = process.argv.slice(2)): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      sizes: { type: 'string', default: '1000,10000,100000' },
      clients: { type: 'string', default: '1,16,64' },
      scenarios: { type: 'string' },
      diagnostics: { type: 'boolean', default: false },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      quick: { type: 'boolean', default: false },
      rounds: { type: 'string', default: '2' },
      seed: { type: 'string', default: '1' },
      'data-dir': { type: 'string', default: path.join(projectRoot, 'bench', '.data') },
      'port-from': { type: 'string', default: '17900' },
      'neo4j-heap': { type: 'string', default: '2g' },
      'page-cache-mb': { type: 'string', default: '1024' },
      'api-dir': { type: 'string', default: projectRoot },
      'no-build': { type: 'boolean', default: false },
      'cpu-prof': { type: 'boolean', default: false },
      reports: { type: 'boolean', default: false },
      'report-runs': { type: 'string', default: '20' },
      writes: { type: 'boolean', default: false },
      'write-stalls': { type: 'boolean', default: false },
      import: { type: 'boolean', default: false },
      audit: { type: 'boolean', default: false },
      'import-files': { type: 'string', default: '10000' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(HELP);
    process.exit(0);
  }
  const list = (s: string) => s.split(',').map((x) => x.trim()).filter(Boolean);
  const sizes = list(values.sizes).map(Number);
  const clients = list(values.clients).map(Number);
  if (sizes.some((n) => !Number.isInteger(n) || n < 100)) throw new Error('--sizes: integers >= 100');
  if (clients.some((n) => !Number.isInteger(n) || n < 1)) throw new Error('--clients: positive integers');
  const num = (name: string, v: string) => {
    const n = Number(v);
    if (!Number.isFinite(n) || n < 0) throw new Error(`--${name}: a non-negative number`);
    return n;
  };
  return {
    // Smallest first: the cost-against-size target divides the largest by the smallest.
    sizes: [...new Set(sizes)].sort((a, b) => a - b),
    clients,
    scenarios: resolveScenarios(list(values.scenarios ?? (values.diagnostics ? 'all' : DEFAULT_SCENARIOS))),
    diagnostics: values.diagnostics,
    durationS: num('duration', values.duration ?? (values.quick ? '3' : '10')),
    warmupS: num('warmup', values.warmup ?? (values.quick ? '1' : '2')),
    rounds: Math.max(1, Math.round(num('rounds', values.rounds))),
    seed: num('seed', values.seed),
    dataDir: path.resolve(values['data-dir']),
    portFrom: num('port-from', values['port-from']),
    neo4jHeap: values['neo4j-heap'],
    pageCacheMb: num('page-cache-mb', values['page-cache-mb']),
    apiDir: path.resolve(values['api-dir']),
    build: !values['no-build'],
    cpuProf: values['cpu-prof'],
    reports: values.reports,
    reportRuns: Math.max(1, Math.round(num('report-runs', values['report-runs']))),
    writes: values.writes,
    writeStalls: values['write-stalls'],
    import: values.import,
    importFiles: Math.max(1, Math.round(num('import-files', values['import-files']))),
    audit: values.audit,
  };
}
