/**
 * `npm run bench -- --import` (issue 31): a generated vault of 10,000 markdown files with about 50,000 wikilinks
 * imported through the folder import (src/shell/import-folder.ts: the bulk API, batches of up to 1,000), in
 * nodes/s, beside the single-POST rate measured in the same run (POST …/context-nodes at 32 clients, the way the
 * issue measured "about 31 per second"). Targets: at least 1,000 nodes/s with their links, and the API's RSS under
 * 300 MB while it runs. Then the same folder again: every file unchanged, nothing written.
 *
 * Both rates are taken on a warmed server, as one that has been running is: first the same vault is imported
 * WARM_UP_IMPORTS times into workspaces of their own. On a fresh JVM, Neo4j's JIT compilers take more of the two
 * cores than the import's own work does, for the first few tens of thousands of nodes (bench/RESULTS.md); each
 * warm-up's rate is printed, so the cold figure stays in view.
 *
 * Then real vaults, on the warm server: each vault kept under test/fixtures/vaults/<name>/docs (documentation
 * vaults as their authors keep them for Obsidian, each with its licence), and each folder listed in
 * BENCH_REAL_VAULTS (separated by `:`; a vault that may not be kept in this repository, e.g. one language of
 * obsidianmd/obsidian-help, which has no licence), each into a workspace of its own: nodes/s, and how many of the
 * (note, note) pairs that its wikilinks name (counted from the files by bench/obsidian-links.ts, as Obsidian
 * resolves them) are links in the graph.
 *
 * Its own Neo4j (a fresh store under <data-dir>/import, wiped at every run) and Redis, and one API process of
 * this checkout; users, keys and workspaces made through the admin API. A few minutes.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../src/infra/project-root.js';
import { importFolder } from '../src/shell/import-folder.js';
import { scanVault } from '../src/shell/vault.js';
import type { ApiCheckout } from './api-checkout.js';
import { api } from './api-client.js';
import { countVaultLinks } from './obsidian-links.js';
import { fmt } from './report.js';
import { type Stack, onFreshStores } from './stack.js';

export const TARGET_NODES_PER_S = 1_000;
export const TARGET_RSS_MB = 300;
const WARM_UP_IMPORTS = 3;

export interface ImportBenchResult {
  files: number;
  wikilinks: number;
  typedLinks: number;
  warmUps: { seconds: number; nodesPerS: number }[];
  singlePost: { nodes: number; clients: number; seconds: number; nodesPerS: number };
  folderImport: { seconds: number; nodesPerS: number; created: number; errors: number; unresolved: number; apiRssBeforeMb: number; apiRssPeakMb: number; cpuS: { api: number; neo4j: number; redis: number; cli: number; foreignPct: number } };
  reimport: { seconds: number; unchanged: number; written: number };
  realVaults: RealVaultResult[];
}

/** One real vault through the folder import, on the warm server. */
export interface RealVaultResult {
  name: string;
  /** Relative to the project when inside it. */
  dir: string;
  notes: number;
  created: number;
  errors: number;
  seconds: number;
  nodesPerS: number;
  /** Wikilinks of the files (outside code) that name a note of the vault, as bench/obsidian-links.ts counts them. */
  wikilinksNamingNotes: number;
  /** The distinct (note, note) pairs those give, self-links left out. */
  pairs: number;
  /** Of those, the pairs that are links in the graph. */
  pairsLinked: number;
  /** Links between the vault's nodes in the graph, all told (typed links from front matter too). */
  linksInGraph: number;
}

const fixtureVaults = path.join(projectRoot, 'test', 'fixtures', 'vaults');

/** The committed real vaults (test/fixtures/vaults/<name>/docs), then the folders of BENCH_REAL_VAULTS. */
export function realVaultDirs(): { name: string; dir: string }[] {
  const committed = existsSync(fixtureVaults)
    ? readdirSync(fixtureVaults, { withFileTypes: true }).filter((e) => e.isDirectory() && existsSync(path.join(fixtureVaults, e.name, 'docs'))).map((e) => ({ name: e.name, dir: path.join(fixtureVaults, e.name, 'docs') })).sort((a, b) => (a.name < b.name ? -1 : 1))
    : [];
  const extra = (process.env.BENCH_REAL_VAULTS ?? '').split(':').filter(Boolean).map((d) => ({ name: path.basename(path.resolve(d)), dir: path.resolve(d) }));
  for (const v of extra) if (!existsSync(v.dir)) throw new Error(`BENCH_REAL_VAULTS: no folder ${v.dir}`);
  return [...committed, ...extra];
}

/** Imports one real vault into a new workspace and compares the graph's links with the files' wikilinks. */
async function measureRealVault(base: string, key: string, workspaceId: string, vault: { name: string; dir: string }): Promise<RealVaultResult> {
  const expected = countVaultLinks(vault.dir);
  const t = performance.now();
  const report = await importFolder({ dir: vault.dir, workspaceId, key, dryRun: false, prune: false, strict: false });
  const seconds = (performance.now() - t) / 1000;
  // Nodes mapped to their files by sourcePath, else by the slug the folder import gave the file.
  const pathOfSlug = new Map(scanVault(vault.dir).map((f) => [f.slug, f.path.normalize('NFC')]));
  const nodes: { id: string; slug: string; sourcePath?: string | null; outgoingLinks: { targetId: string }[] }[] = [];
  for (let page = 1; ; page += 1) {
    const listed = await api(base, 'GET', `/api/v1/workspaces/${workspaceId}/context-nodes?status=live&limit=200&page=${page}&sort=created_at&order=asc`, key);
    for (const n of listed.nodes) nodes.push(await api(base, 'GET', `/api/v1/workspaces/${workspaceId}/context-nodes/${n.id}`, key));
    if (page * 200 >= listed.pagination.total) break;
  }
  const pathOf = new Map<string, string>();
  for (const n of nodes) {
    const p = typeof n.sourcePath === 'string' ? n.sourcePath.normalize('NFC') : pathOfSlug.get(n.slug);
    if (p !== undefined) pathOf.set(n.id, p);
  }
  const inGraph = new Set<string>();
  for (const n of nodes) {
    for (const l of n.outgoingLinks) {
      const source = pathOf.get(n.id);
      const target = pathOf.get(l.targetId);
      if (source !== undefined && target !== undefined) inGraph.add(`${source}\n${target}`);
    }
  }
  const pairsLinked = expected.pairs.filter((p) => inGraph.has(`${p.source}\n${p.target}`)).length;
  return {
    name: vault.name, dir: path.relative(projectRoot, vault.dir).startsWith('..') ? vault.dir : path.relative(projectRoot, vault.dir),
    notes: expected.notes.length, created: report.created.length, errors: report.errors.length, seconds, nodesPerS: report.created.length / seconds,
    wikilinksNamingNotes: expected.namingNotes, pairs: expected.pairs.length, pairsLinked, linksInGraph: inGraph.size,
  };
}

/** The vault: page-NNNNN.md, each with 5 wikilinks to pages before and after it and one typed link in its front matter. */
function writeVault(dir: string, files: number): { wikilinks: number; typedLinks: number } {
  rmSync(dir, { recursive: true, force: true });
  let wikilinks = 0;
  let typedLinks = 0;
  const name = (i: number) => `page-${String(((i % files) + files) % files).padStart(5, '0')}`;
  for (let i = 0; i < files; i++) {
    const folder = path.join(dir, `section-${Math.floor(i / 1000)}`);
    if (i % 1000 === 0) mkdirSync(folder, { recursive: true });
    const targets = [i + 1, i + 7, i + 2_500, i - 3, i + 5_003].map(name);
    wikilinks += targets.length;
    typedLinks += 1;
    const text = [
      '---',
      `slug: ${name(i)}`,
      `description: Generated page ${i} of the import benchmark`,
      `importance: ${i % 101}`,
      `requires: ${name(i + 4_999)}`,
      '---',
      `# Page ${i}`,
      '',
      `This page explains topic ${i}. It builds on [[${targets[0]}]] and [[${targets[1]}|an earlier topic]].`,
      '',
      `## Details`,
      '',
      `See [[${targets[2]}#details]], [[${targets[3]}]] and [[${targets[4]}]] for the rest. `.repeat(1) + 'Plain prose follows. '.repeat(20),
      '',
      '```',
      `[[not-a-link-${i}]]`,
      '```',
      '',
    ].join('\n');
    writeFileSync(path.join(folder, `${name(i)}.md`), text);
  }
  return { wikilinks, typedLinks };
}

export async function runImportBench(o: { portFrom: number; dataDir: string; logDir: string; heap: string; checkout: ApiCheckout; files: number; cpuProfDir?: string }): Promise<ImportBenchResult> {
  return onFreshStores({ ...o, pageCacheMb: 512, name: 'import' }, (stack, dataDir) => measureImport(stack, dataDir, o));
}

async function measureImport(stack: Stack, dataDir: string, o: { checkout: ApiCheckout; files: number; cpuProfDir?: string }): Promise<ImportBenchResult> {
  const adminToken = randomBytes(24).toString('hex');
  const proc = await stack.startApi('api-import', { checkout: o.checkout, adminToken, dataDir, cpuProfDir: o.cpuProfDir });
  stack.sampler.start();
  const base = proc.url;
  console.log(`API ${base} (pid ${proc.pid})`);
  const user = await api(base, 'POST', '/api/v1/admin/users', adminToken, { email: 'import@bench.example', name: 'Import' });
  const { key } = await api(base, 'POST', `/api/v1/admin/users/${user.id}/keys`, adminToken, { label: 'bench import' });
  const workspace = async (name: string) => (await api(base, 'POST', '/api/v1/admin/workspaces', adminToken, { name, ownerUserId: user.id, plan: 'enterprise' })).id as string;

  const vaultDir = path.join(dataDir, 'vault');
  const { wikilinks, typedLinks } = writeVault(vaultDir, o.files);
  console.log(`vault: ${o.files} files, ${wikilinks} wikilinks, ${typedLinks} typed links in ${vaultDir}`);
  const previous = process.env.API_URL;
  process.env.API_URL = base;
  try {
    const importInto = (workspaceId: string, progress?: NodeJS.WriteStream) =>
      importFolder({ dir: vaultDir, workspaceId, key, dryRun: false, prune: false, strict: false, progress });
    const warmUps: ImportBenchResult['warmUps'] = [];
    for (let i = 1; i <= WARM_UP_IMPORTS; i++) {
      const ws = await workspace(`Warm-up ${i}`);
      const t = performance.now();
      const report = await importInto(ws);
      const seconds = (performance.now() - t) / 1000;
      warmUps.push({ seconds, nodesPerS: report.created.length / seconds });
      console.log(`warm-up import ${i} of ${WARM_UP_IMPORTS}: ${report.created.length} nodes in ${fmt(seconds, 1)} s = ${fmt(report.created.length / seconds, 0)} nodes/s`);
    }

    // Today's way: one POST per node, 32 clients at once, into a workspace of its own.
    const singleWs = await workspace('Single POST');
    const clients = 32;
    const singleNodes = 640;
    let next = 0;
    const t0 = performance.now();
    await Promise.all(Array.from({ length: clients }, async () => {
      for (let i = next++; i < singleNodes; i = next++) {
        const res = await fetch(`${base}/api/v1/workspaces/${singleWs}/context-nodes`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ title: `Single ${i}`, slug: `single-${i}`, description: 'one POST', content: `Links [[single-${i + 1}]] and [[single-${i + 7}]].` }),
        });
        if (res.status !== 201) throw new Error(`single POST answered ${res.status}: ${await res.text()}`);
        await res.arrayBuffer();
      }
    }));
    const singleS = (performance.now() - t0) / 1000;
    const singlePost = { nodes: singleNodes, clients, seconds: singleS, nodesPerS: singleNodes / singleS };
    console.log(`single POST: ${singleNodes} nodes at ${clients} clients in ${fmt(singleS, 1)} s = ${fmt(singlePost.nodesPerS, 1)} nodes/s`);

    const importWs = await workspace('Folder import');
    stack.sampler.resetWindow();
    const apiRssBeforeMb = (stack.sampler.windowPeak('api-import') ?? 0) / (1024 * 1024);
    const cpuBefore = stack.meter.snapshot();
    const t1 = performance.now();
    const report = await importInto(importWs, process.stderr.isTTY ? process.stderr : undefined);
    const seconds = (performance.now() - t1) / 1000;
    const apiRssPeakMb = (stack.sampler.windowPeak('api-import') ?? 0) / (1024 * 1024);
    const cpu = stack.meter.since(cpuBefore);
    const cpuS = { api: (cpu.procsMs['api-import'] ?? 0) / 1000, neo4j: (cpu.procsMs.neo4j ?? 0) / 1000, redis: (cpu.procsMs.redis ?? 0) / 1000, cli: cpu.selfMs / 1000, foreignPct: cpu.foreignPct };
    const folderImport = {
      seconds, nodesPerS: report.created.length / seconds, created: report.created.length, errors: report.errors.length, unresolved: report.unresolved.length, apiRssBeforeMb, apiRssPeakMb, cpuS,
    };
    console.log(`folder import: ${report.created.length} nodes with their links in ${fmt(seconds, 1)} s = ${fmt(folderImport.nodesPerS, 0)} nodes/s; API RSS ${fmt(apiRssBeforeMb, 0)} MB before, peak ${fmt(apiRssPeakMb, 0)} MB; ${report.errors.length} errors, ${report.unresolved.length} files with unresolved links`);
    console.log(`  CPU: API ${fmt(cpuS.api, 1)} s, Neo4j ${fmt(cpuS.neo4j, 1)} s, Redis ${fmt(cpuS.redis, 1)} s, the CLI side (this process) ${fmt(cpuS.cli, 1)} s; other processes used ${cpu.foreignPct}% of the machine`);

    const t2 = performance.now();
    const again = await importInto(importWs);
    const reimport = { seconds: (performance.now() - t2) / 1000, unchanged: again.unchanged, written: again.created.length + again.updated.length };
    console.log(`same folder again: ${again.unchanged} unchanged, ${reimport.written} written, in ${fmt(reimport.seconds, 1)} s`);

    const realVaults: RealVaultResult[] = [];
    for (const vault of realVaultDirs()) {
      const r = await measureRealVault(base, key, await workspace(`Real vault ${vault.name}`), vault);
      realVaults.push(r);
      console.log(`real vault ${r.name} (${r.dir}): ${r.created} of ${r.notes} notes in ${fmt(r.seconds, 2)} s = ${fmt(r.nodesPerS, 0)} nodes/s, ${r.errors} errors; links: ${r.pairsLinked} of ${r.pairs} (note, note) pairs named by ${r.wikilinksNamingNotes} wikilinks (${fmt((100 * r.pairsLinked) / Math.max(1, r.pairs), 1)}%), ${r.linksInGraph} links in the graph`);
    }
    return { files: o.files, wikilinks, typedLinks, warmUps, singlePost, folderImport, reimport, realVaults };
  } finally {
    if (previous === undefined) delete process.env.API_URL;
    else process.env.API_URL = previous;
  }
}

export function importTable(r: ImportBenchResult, markdown: boolean): string[] {
  const rows = [
    ...r.warmUps.map((w, i) => [`warm-up import ${i + 1}`, `${r.files} files, into a workspace of its own`, `${fmt(w.nodesPerS, 0)} nodes/s`, '']),
    ['single POST (today)', `${r.singlePost.nodes} nodes, ${r.singlePost.clients} clients`, `${fmt(r.singlePost.nodesPerS, 1)} nodes/s`, ''],
    ['folder import', `${r.folderImport.created} nodes, ${r.wikilinks} wikilinks, ${r.typedLinks} typed links`, `${fmt(r.folderImport.nodesPerS, 0)} nodes/s (×${fmt(r.folderImport.nodesPerS / r.singlePost.nodesPerS, 0)})`, r.folderImport.nodesPerS >= TARGET_NODES_PER_S ? 'met' : 'MISSED'],
    ['API RSS peak', 'during the folder import', `${fmt(r.folderImport.apiRssPeakMb, 0)} MB (${fmt(r.folderImport.apiRssBeforeMb, 0)} MB before)`, r.folderImport.apiRssPeakMb < TARGET_RSS_MB ? 'met' : 'MISSED'],
    ['re-import', 'the same folder', `${r.reimport.unchanged} unchanged, ${r.reimport.written} written, ${fmt(r.reimport.seconds, 1)} s`, r.reimport.written === 0 ? 'met' : 'MISSED'],
    ...(r.realVaults ?? []).flatMap((v) => [
      [v.name, `real vault: ${v.created} of ${v.notes} notes${v.errors ? `, ${v.errors} errors` : ''}`, `${fmt(v.nodesPerS, 0)} nodes/s (${fmt(v.seconds, 2)} s)`, ''],
      [`  links resolved`, `${v.pairs} (note, note) pairs of ${v.wikilinksNamingNotes} wikilinks`, `${v.pairsLinked} in the graph (${fmt((100 * v.pairsLinked) / Math.max(1, v.pairs), 1)}%)`, v.pairsLinked >= 0.95 * v.pairs ? 'met' : 'MISSED'],
    ]),
  ];
  if (!markdown) return rows.map((row) => `  ${row[0].padEnd(20)} ${row[1].padEnd(52)} ${row[2].padEnd(36)} ${row[3]}`);
  return ['| What | Of | Figure | Target |', '|---|---|---|---|', ...rows.map((row) => `| ${row.join(' | ')} |`)];
}
