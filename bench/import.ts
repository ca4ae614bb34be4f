/**
 * `npm run bench -- --import`: a generated vault of markdown files, each with five wikilinks and one typed link,
 * through the folder import of `npm run cli -- import` (src/shell/import-folder.ts), in nodes/s, with the API's RSS
 * and the CPU seconds of each process. What is measured is a server that has run a while: the same vault goes first
 * into workspaces of their own (each warm-up's rate is printed: the cold figures). Then the same folder once more:
 * every file unchanged, nothing written. Targets: the import's rate and the API's RSS.
 *
 * Then real vaults, each into a workspace of its own: those under test/fixtures/vaults/<name>/docs and the folders
 * listed in BENCH_REAL_VAULTS (separated by `:`; a vault that may not be kept here). Beside each rate, how many of
 * the (note, note) pairs its wikilinks name, counted from the files as Obsidian reads them
 * (test/support/obsidian-links.ts, the real-vaults test's count), are links of the graph.
 */
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PlaybooksClient } from '@playbooks/client';
import { adminCreateWorkspace } from '@playbooks/client/api';
import { projectRoot } from '../src/infra/project-root.js';
import { importFolder } from '../src/shell/import-folder.js';
import { scanVault } from '../src/shell/vault.js';
import { countVaultLinks } from '../test/support/obsidian-links.js';
import type { Checkout } from './checkout.js';
import { freshApi } from './fresh-api.js';
import { fmt, mb, table } from './report.js';
import type { Options } from './options.js';
import type { Stack } from './stack.js';

export const TARGETS = { nodesPerS: 1_000, rssMb: 300 };
const WARM_UP_IMPORTS = 2;

/** page-NNNNN.md in folders of a thousand: wikilinks to pages near and far, one `requires` in the front matter, a code block whose [[…]] is no link. */
function writeVault(dir: string, files: number): void {
  rmSync(dir, { recursive: true, force: true });
  const name = (i: number) => `page-${String(((i % files) + files) % files).padStart(5, '0')}`;
  for (let i = 0; i < files; i++) {
    const folder = path.join(dir, `section-${Math.floor(i / 1000)}`);
    if (i % 1000 === 0) mkdirSync(folder, { recursive: true });
    const [a, b, c, d, e] = [i + 1, i + 7, i + 2_500, i - 3, i + 5_003].map(name);
    writeFileSync(path.join(folder, `${name(i)}.md`), [
      '---', `slug: ${name(i)}`, `description: Generated page ${i} of the import benchmark`, `importance: ${i % 101}`, `requires: ${name(i + 4_999)}`, '---',
      `# Page ${i}`, '', `This page explains topic ${i}. It builds on [[${a}]] and [[${b}|an earlier topic]].`, '',
      '## Details', '', `See [[${c}#details]], [[${d}]] and [[${e}]] for the rest. ${'Plain prose follows. '.repeat(20)}`, '', '```', `[[not-a-link-${i}]]`, '```', '',
    ].join('\n'));
  }
}

export async function runImport(o: Options, stack: Stack, checkout: Checkout) {
  const { dataDir, api, admin, user, key } = await freshApi(o, stack, checkout, 'import');
  const vault = path.join(dataDir, 'vault');
  writeVault(vault, o.importFiles);
  // The folder import reaches the service the way the CLI does: at API_URL.
  process.env.API_URL = api.url;
  const importInto = async (name: string, workspaceId?: string, dir = vault) => {
    const ws = workspaceId ?? (await adminCreateWorkspace({ client: admin, body: { name, ownerUserId: user.id, plan: 'enterprise' }, throwOnError: true })).data.id;
    const t = performance.now();
    const report = await importFolder({ dir, workspaceId: ws, key, dryRun: false, prune: false, strict: false });
    const seconds = (performance.now() - t) / 1000;
    console.log(`  ${name}: ${report.created.length} created, ${report.unchanged} unchanged, ${report.errors.length} errors in ${fmt(seconds)} s = ${fmt(report.created.length / seconds, 0)} nodes/s`);
    return { ws, report, seconds, nodesPerS: report.created.length / seconds };
  };
  console.log(`\n== ${o.importFiles} files (${5 * o.importFiles} wikilinks) through the folder import`);
  for (let i = 1; i <= WARM_UP_IMPORTS; i++) await importInto(`warm-up ${i}`);
  stack.meter.resetWindow();
  const cpu = stack.meter.snapshot();
  const measured = await importInto('measured');
  const { procsMs, selfMs } = stack.meter.since(cpu);
  const rssPeak = stack.meter.windowPeak(api.name) ?? 0;
  const again = await importInto('the same folder again', measured.ws);

  const fixtures = path.join(projectRoot, 'test', 'fixtures', 'vaults');
  const real = [
    ...readdirSync(fixtures).filter((n) => existsSync(path.join(fixtures, n, 'docs'))).sort().map((n) => path.join(fixtures, n, 'docs')),
    ...(process.env.BENCH_REAL_VAULTS ?? '').split(':').filter(Boolean).map((d) => path.resolve(d)),
  ];
  const realRows: string[][] = [];
  for (const dir of real) {
    const name = path.basename(path.basename(dir) === 'docs' ? path.dirname(dir) : dir);
    const r = await importInto(`real vault ${name}`, undefined, dir);
    const expected = countVaultLinks(dir);
    const pathOf = new Map(scanVault(dir).map((f) => [f.slug, f.path.normalize('NFC')]));
    const graph = await new PlaybooksClient({ baseUrl: api.url, apiKey: key, workspaceId: r.ws }).graph.get();
    const fileOf = new Map(graph.nodes.map((n) => [n.id, pathOf.get(n.slug)]));
    const linked = new Set(graph.links.map((l) => `${fileOf.get(l.from)}\n${fileOf.get(l.to)}`));
    const pairsLinked = expected.pairs.filter((p) => linked.has(`${p.source}\n${p.target}`)).length;
    realRows.push([name, String(expected.notes.length), String(r.report.created.length), String(r.report.errors.length), fmt(r.seconds), fmt(r.nodesPerS, 0), `${pairsLinked} / ${expected.pairs.length}`]);
  }
  const targets = [
    ['nodes/s with their links', fmt(measured.nodesPerS, 0), `>= ${TARGETS.nodesPerS}`, measured.nodesPerS >= TARGETS.nodesPerS],
    ['API RSS at its peak', mb(rssPeak), `< ${TARGETS.rssMb} MB`, rssPeak < TARGETS.rssMb * 2 ** 20],
  ] as const;
  const out = (markdown: boolean) => [
    ...table(['import', 'files', 'created', 'errors', 'seconds', 'nodes/s', 'CPU s: API / Neo4j / importer'], [
      ['measured', String(measured.report.files), String(measured.report.created.length), String(measured.report.errors.length), fmt(measured.seconds), fmt(measured.nodesPerS, 0), [procsMs[api.name], procsMs.neo4j, selfMs].map((ms) => fmt(ms / 1000)).join(' / ')],
      ['the same again', String(again.report.files), `${again.report.unchanged} unchanged`, String(again.report.errors.length), fmt(again.seconds), '', ''],
    ], markdown),
    '',
    ...table(['target', 'value', 'bound', 'verdict'], targets.map(([t, v, b, met]) => [t, v, b, met ? 'met' : 'MISSED']), markdown, 'lrrl'),
    '',
    ...table(['real vault', 'notes', 'created', 'errors', 'seconds', 'nodes/s', 'pairs linked / named'], realRows, markdown),
  ];
  console.log(['', '== bulk import', ...out(false)].join('\n'));
  return { md: ['', '### Bulk import', '', ...out(true)], json: { realVaults: realRows, files: o.importFiles, measured: { ...measured, report: undefined, created: measured.report.created.length }, rssPeak, cpuMs: { ...procsMs, importer: selfMs } } };
}
