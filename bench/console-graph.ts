/**
 * How long the console's graph view takes, in Chromium, from navigation to a drawn graph of a generated vault:
 * 5,000 notes and about 15,000 links by default (the issue's target: ready in under 2 s). Prints figures only;
 * nothing is asserted.
 *
 *   npx tsx bench/console-graph.ts [--notes 5000] [--links 15000] [--runs 5] [--screenshot graph.png]
 *
 * The vault: topic clusters of varied sizes, each around a hub note (a map of content) that most of its notes
 * link to, links mostly inside a cluster and some across, and one note in ten without any link. It is written
 * through the bulk import (manual links, batches of 500), into a workspace of a service started here the way
 * the test suite starts one (test/support: Neo4j and Redis from NEO4J_URI / REDIS_URL, containers or the
 * embedded launcher), without the tests' response validation. The console is built first when its sources
 * changed (scripts/console-build.ts).
 *
 * After one warm-up load, each run loads /w/<ws>/graph twice: after a write to the workspace (so the graph's API
 * call is answered afresh, as after an import) and again (answered from the API's response cache). For each
 * load: when the graph's API call started and ended, when the layout worker's first frame arrived, when the graph
 * was ready (its first frame drawn and the main thread free: data-ready-ms) and when the layout settled
 * (data-layout-ms), all in ms from navigation start; then the medians.
 */
import { execFileSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { projectRoot } from '../src/infra/project-root.js';
import { createLogger, startService } from '../src/runtime.js';
import { createWorkspace, request } from '../test/support/api.js';
import { startTestDependencies } from '../test/support/dependencies.js';
import { env, testConfig } from '../test/support/harness.js';
import { consoleUrl, launchBrowser, openConsole, signIn } from '../test/console/browser.js';

const { values: args } = parseArgs({
  options: {
    notes: { type: 'string', default: '5000' },
    links: { type: 'string', default: '15000' },
    runs: { type: 'string', default: '5' },
    screenshot: { type: 'string' },
  },
});
const notes = Number(args.notes);
const linkTarget = Number(args.links);
const runs = Number(args.runs);
/** Notes per import request (the test Neo4j's transactions are capped at 256 MB). */
const batch = 500;

interface Note { slug: string; title: string; description: string; nodeType: string; links: { linkType: 'references'; target: string }[] }

const topics = ['Distributed systems', 'Cooking', 'Gardening', 'Typography', 'Linear algebra', 'Climbing', 'Jazz harmony', 'Tax law', 'Film noir', 'Beekeeping', 'Compilers', 'Urban planning'];

/** A vault-like graph; every link goes from a later note to an earlier one, so each batch's targets are stored. */
function vault(n: number, target: number): Note[] {
  let seed = 12345;
  const rnd = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  const linked = Math.round(n * 0.9);
  const clusterOf: number[] = [];
  const clusters: number[][] = [];
  for (let i = 0; i < linked; ) {
    const size = Math.min(linked - i, Math.round(15 + rnd() * rnd() * 400));
    const members: number[] = [];
    for (let k = 0; k < size; k++, i++) {
      members.push(i);
      clusterOf.push(clusters.length);
    }
    clusters.push(members);
  }
  const notesOut: Note[] = Array.from({ length: n }, (_, i) => {
    const topic = i < linked ? topics[clusterOf[i] % topics.length] : 'Inbox';
    const hub = i < linked && clusters[clusterOf[i]][0] === i;
    return {
      slug: `note-${i}`,
      title: hub ? `${topic} — map of content ${clusterOf[i]}` : `${topic} note ${i}`,
      description: hub ? 'A map of content' : 'A note',
      nodeType: ['reference', 'process', 'domain-knowledge', 'example'][i % 4],
      links: [],
    };
  });
  const seen = new Set<string>();
  let count = 0;
  const add = (a: number, b: number) => {
    if (a === b) return;
    const [from, to] = a > b ? [a, b] : [b, a];
    if (seen.has(`${from}>${to}`)) return;
    seen.add(`${from}>${to}`);
    notesOut[from].links.push({ linkType: 'references', target: `note-${to}` });
    count++;
  };
  // Most notes of a cluster link its hub; the rest of the links mostly stay inside the cluster.
  for (const members of clusters) for (const m of members.slice(1)) if (rnd() < 0.7) add(members[0], m);
  while (count < target) {
    const a = Math.floor(rnd() * linked);
    const own = clusters[clusterOf[a]];
    const other = rnd() < 0.88 ? own : clusters[Math.floor(rnd() * clusters.length)];
    add(a, other[Math.floor(rnd() ** 2 * other.length)]);
  }
  return notesOut;
}

const ms = (v: number | null | undefined) => (v == null || Number.isNaN(v) ? '—' : `${Math.round(v)}`.padStart(6));
const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];

async function main(): Promise<void> {
  execFileSync('npx', ['tsx', 'scripts/console-build.ts'], { cwd: projectRoot, stdio: 'inherit' });
  env.deps = await startTestDependencies();
  env.config = testConfig();
  env.service = await startService(env.config, createLogger(env.config.logLevel), env.deps);
  const browser = await launchBrowser();
  try {
    const workspace = await createWorkspace();
    const all = vault(notes, linkTarget);
    const started = Date.now();
    for (let start = 0; start < all.length; start += batch) {
      const res = await request('POST', workspace.path('/context-nodes/import'), { token: workspace.owner.key, body: { nodes: all.slice(start, start + batch) } });
      if (res.status !== 200 && res.status !== 201) throw new Error(`import: ${res.status} ${res.text}`);
    }
    const graph = await request('GET', workspace.path('/graph?limit=10000'), { token: workspace.owner.key });
    const isolated = graph.body.nodes.length - new Set(graph.body.links.flatMap((l: { from: string; to: string }) => [l.from, l.to])).size;
    console.log(`vault: ${graph.body.nodes.length} notes, ${graph.body.links.length} links, ${isolated} without links (imported in ${((Date.now() - started) / 1000).toFixed(1)} s)`);
    const { page, context } = await openConsole(browser);
    await signIn(page, workspace.owner.key);
    /** One page load of the graph, its figures in ms from navigation start. */
    const load = async () => {
      await page.goto(consoleUrl(`/w/${workspace.workspaceId}/graph`));
      await page.locator('[data-testid="graph"][data-layout="done"][data-ready="true"]').waitFor({ timeout: 120_000 });
      return page.evaluate(() => {
        const api = (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).find((e) => /\/graph\?/.test(e.name));
        const first = performance.getEntriesByName('graph:first-frame')[0];
        const g = document.querySelector<HTMLElement>('[data-testid="graph"]')!;
        return { apiStart: api?.startTime, apiEnd: api?.responseEnd, first: first?.startTime, ready: Number(g.dataset.readyMs), layout: Number(g.dataset.layoutMs) };
      });
    };
    // A write to the workspace changes its graph's generation: the next graph call is answered afresh, not cached.
    let edits = 0;
    const touch = async () => {
      const res = await request('POST', workspace.path('/context-nodes/import'), { token: workspace.owner.key, body: { nodes: [{ ...all[1], description: `A note, edited ${++edits} times` }] } });
      if (res.status !== 200 && res.status !== 201) throw new Error(`edit: ${res.status} ${res.text}`);
    };
    console.log('ms from navigation start      API call start    end  1st frame  ready (drawn)  layout settled');
    const figures: Record<'cold' | 'warm', { ready: number[]; settled: number[] }> = { cold: { ready: [], settled: [] }, warm: { ready: [], settled: [] } };
    await load();
    for (let run = 1; run <= runs; run++) {
      for (const kind of ['cold', 'warm'] as const) {
        if (kind === 'cold') await touch();
        const f = await load();
        console.log(`  run ${run}, ${kind === 'cold' ? 'after a write' : 'again (cached)'.padEnd(13)}     ${ms(f.apiStart)}        ${ms(f.apiEnd)} ${ms(f.first)}      ${ms(f.ready)}          ${ms(f.layout)}`);
        figures[kind].ready.push(f.ready);
        figures[kind].settled.push(f.layout);
      }
    }
    for (const kind of ['cold', 'warm'] as const) {
      const what = kind === 'cold' ? 'after a write (the API answers afresh)' : 'again (the API answers from its cache)';
      console.log(`median of ${runs}, ${what}: ready (drawn) ${median(figures[kind].ready)} ms, layout settled ${median(figures[kind].settled)} ms after navigation start (target: under 2,000 ms)`);
    }
    if (args.screenshot) {
      await page.getByTestId('graph').screenshot({ path: args.screenshot });
      console.log(`screenshot: ${args.screenshot}`);
    }
    await context.close();
  } finally {
    await browser.close();
    await env.service.stop();
    await env.deps.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
