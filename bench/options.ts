/** The options of `npm run bench`, and its --help. */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { projectRoot } from '../src/infra/project-root.js';
import { SCENARIO_NAMES } from './targets.js';
import { QUALITY_SETS, type QualitySetName } from './quality-data.js';

const HELP = `npm run bench -- [options]

Measures the API against its baselines and prints, last, one table: each target, its ratio, met or missed, and the
API's CPU time per request beside it. Starts its own Neo4j and Redis; the data stays in --data-dir and is reused.
Results: bench/results/<stamp>.json and .md. How to read them: bench/RESULTS.md.

  --sizes LIST        workspace sizes in context nodes                 (1000,10000,100000)
  --clients LIST      concurrent clients                               (1,16,64)
  --scenarios LIST    a subset of the scenarios (all): ${SCENARIO_NAMES.slice(0, 4).join(', ')},
                      ${SCENARIO_NAMES.slice(4, 8).join(', ')},
                      ${SCENARIO_NAMES.slice(8).join(', ')}
  --duration S        measured seconds per scenario and client count, split over the rounds  (10)
  --warmup S          warm-up seconds before the first round           (2)
  --quick             --duration 3 --warmup 1
  --rounds N          rounds a measurement is split into               (2)
  --writes            instead: single writes/s into one workspace at 16 and 64 clients, through the API and by the
                      raw driver (the same repository calls, no HTTP); then node creates with AUDIT=off against
                      audit on. Own fresh store under <data-dir>/writes; --duration, --warmup, --rounds apply
  --import            instead: a generated vault of --import-files markdown files (10000) through the folder
                      import, nodes/s and the API's RSS; then the real vaults of test/fixtures/vaults and of
                      env BENCH_REAL_VAULTS (folders separated by :). Own fresh store under <data-dir>/import
  --write-stalls      instead: the longest event-loop delay of the API while the worst case of each input bound,
                      and the largest body of each bulk route, is written. Own fresh store under <data-dir>/stalls
  --crowded-name      instead: single writes (a namesake created, renamed, its aliases cleared; a linking node's
                      content changed) beside 5,000 nodes of one title and 5,000 nodes linking to it, against the
                      same writes in a workspace of names of their own. Own fresh store under <data-dir>/crowded-name
  --reports           instead: every saved report through the API on the largest size's workspace, p95 and the
                      indexes each plan uses
  --shell             instead: the start-up of the analysts' Cypher shell, installed from the API's /downloads/
                      (--help, and -e 'RETURN 1' to its first answer), beside npm run cypher
  --replicas          instead: the bundle, cached and uncached, through a small round-robin balancer in front of 1, 2
                      and 3 API processes on one Neo4j and Redis, at the largest --clients, on the smallest size's
                      workspace (on a machine of few cores this shows the overhead of more processes, not a speed-up)
  --retrieval-latency instead: POST …/context/query on the 10k-node generated workspace, one client, every question
                      new (hybrid, words, meaning; the question's embedding alone; a node read and the uncached
                      bundle as baselines), each statement of it alone; then node creates with the embedded model
                      against EMBEDDINGS=off. Vectors stored by the bench, not the model. Own fresh store under
                      <data-dir>/query-latency; --rounds, --page-cache-mb apply
  --retrieval-requests N  requests per query figure (200)    --retrieval-writes N  node creates per write figure (300)
  --quality           instead: retrieval quality on HippoRAG's multi-hop question sets (bench/data/hipporag): one
                      workspace per set, a node per passage linked by the titles it names; recall@2/@5, all
                      gold@5 and latency of the context query (words, meaning, hybrid, hybrid + links) and of
                      the list search ?q= as a baseline. Own fresh store under <data-dir>/quality
  --quality-sets LIST the sets (${QUALITY_SETS.join(',')})
  --quality-limit N   questions per set, the first N                   (100)
  --quality-reuse     ask again in the workspaces of the last --quality run (its store kept, nothing imported or
                      embedded again): for tuning the ranking
  --api-dir DIR       measure the API of another checkout (its dist/src/server.js and its rank-bundle statement
                      for the floor); data, baselines and load stay this checkout's   (.)
  --no-build          do not run \`npm run build\` in that checkout first (env BENCH_REVISION names a copy's commit)
  --cpu-prof          a V8 CPU profile of each API process, beside the results (open it in Chrome DevTools)
  --data-dir DIR      Neo4j store, workspace catalogue, logs          (bench/.data)
  --port-from N       first of the 100 ports used                      (17900)
  --neo4j-heap SIZE   (2g)    --page-cache-mb N (1024)    --seed N  the generator's seed (1)

An older commit against this one, same data and harness: build it in a copy (git archive <commit> | tar -x -C DIR;
npm ci there), then \`npm run bench -- --api-dir DIR\` and \`npm run bench\`, and compare the two targets tables.
`;

export type Options = ReturnType<typeof parseOptions>;

export function parseOptions(argv = process.argv.slice(2)) {
  const { values: v } = parseArgs({
    args: argv,
    options: {
      sizes: { type: 'string', default: '1000,10000,100000' }, clients: { type: 'string', default: '1,16,64' }, scenarios: { type: 'string' },
      duration: { type: 'string' }, warmup: { type: 'string' }, quick: { type: 'boolean', default: false }, rounds: { type: 'string', default: '2' },
      writes: { type: 'boolean', default: false }, import: { type: 'boolean', default: false }, 'import-files': { type: 'string', default: '10000' },
      reports: { type: 'boolean', default: false }, shell: { type: 'boolean', default: false }, replicas: { type: 'boolean', default: false }, 'write-stalls': { type: 'boolean', default: false }, 'crowded-name': { type: 'boolean', default: false },
      quality: { type: 'boolean', default: false }, 'retrieval-latency': { type: 'boolean', default: false }, 'retrieval-requests': { type: 'string', default: '200' }, 'retrieval-writes': { type: 'string', default: '300' }, 'quality-sets': { type: 'string', default: QUALITY_SETS.join(',') }, 'quality-limit': { type: 'string', default: '100' }, 'quality-reuse': { type: 'boolean', default: false }, 'api-dir': { type: 'string', default: projectRoot }, 'no-build': { type: 'boolean', default: false },
      'cpu-prof': { type: 'boolean', default: false }, 'data-dir': { type: 'string', default: path.join(projectRoot, 'bench', '.data') },
      'port-from': { type: 'string', default: '17900' }, 'neo4j-heap': { type: 'string', default: '2g' }, 'page-cache-mb': { type: 'string', default: '1024' },
      seed: { type: 'string', default: '1' }, help: { type: 'boolean', default: false },
    },
  });
  if (v.help) {
    console.log(HELP);
    process.exit(0);
  }
  const numbers = (name: string, s: string) => s.split(',').map((x) => {
    const n = Number(x);
    if (!Number.isFinite(n) || n < 0) throw new Error(`--${name}: non-negative numbers`);
    return n;
  });
  const scenarios = v.scenarios?.split(',') ?? SCENARIO_NAMES;
  const unknown = scenarios.filter((s) => !(SCENARIO_NAMES as string[]).includes(s));
  if (unknown.length) throw new Error(`unknown scenario ${unknown.join(', ')}; the scenarios: ${SCENARIO_NAMES.join(', ')}`);
  const qualitySets = [...new Set(v['quality-sets'].split(',').filter(Boolean))];
  const unknownSets = qualitySets.filter((s) => !(QUALITY_SETS as readonly string[]).includes(s));
  if (unknownSets.length) throw new Error(`--quality-sets: unknown ${unknownSets.join(', ')}; the sets: ${QUALITY_SETS.join(', ')}`);
  const started = new Date();
  const mode = v.writes ? 'writes' : v.import ? 'import' : v.reports ? 'reports' : v.shell ? 'shell' : v.replicas ? 'replicas' : v['write-stalls'] ? 'write-stalls' : v['crowded-name'] ? 'crowded-name' : v.quality ? 'quality' : v['retrieval-latency'] ? 'retrieval-latency' : undefined;
  const stamp = started.toISOString().replace(/[:.]/g, '-') + (mode ? `-${mode}` : '');
  return {
    started, stamp,
    // Smallest first: the cost-against-size target divides the largest by the smallest.
    sizes: [...new Set(numbers('sizes', v.sizes))].sort((a, b) => a - b),
    clients: numbers('clients', v.clients),
    scenarios: SCENARIO_NAMES.filter((s) => scenarios.includes(s)),
    durationS: numbers('duration', v.duration ?? (v.quick ? '3' : '10'))[0],
    warmupS: numbers('warmup', v.warmup ?? (v.quick ? '1' : '2'))[0],
    rounds: Math.max(1, numbers('rounds', v.rounds)[0]),
    qualitySets: qualitySets as QualitySetName[], qualityLimit: Math.max(1, numbers('quality-limit', v['quality-limit'])[0]), qualityReuse: v['quality-reuse'],
    retrievalRequests: Math.max(1, numbers('retrieval-requests', v['retrieval-requests'])[0]), retrievalWrites: Math.max(2, numbers('retrieval-writes', v['retrieval-writes'])[0]),
    mode, importFiles: Math.max(1, numbers('import-files', v['import-files'])[0]), apiDir: v['api-dir'], build: !v['no-build'],
    cpuProfDir: v['cpu-prof'] ? path.join(projectRoot, 'bench', 'results', `${stamp}-cpuprof`) : undefined,
    dataDir: path.resolve(v['data-dir']), logDir: path.join(path.resolve(v['data-dir']), 'logs', stamp),
    portFrom: numbers('port-from', v['port-from'])[0], neo4jHeap: v['neo4j-heap'], pageCacheMb: numbers('page-cache-mb', v['page-cache-mb'])[0],
    seed: numbers('seed', v.seed)[0],
  };
}
