/**
 * The targets of two or more runs side by side, e.g. an older commit (--api-dir) and the current one:
 *
 *   npx tsx bench/compare.ts bench/results/<old>.json bench/results/<new>.json
 *
 * Each column is one run's ratio and verdict; the A/A control of each run is printed below, because a
 * difference between two runs is only worth reading beyond it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { sizeLabel } from './report.js';
import type { Verdict } from './targets.js';

interface Result {
  startedAt: string;
  revision?: { commit: string; dirty: boolean };
  apiDir?: string;
  targets?: Verdict[];
  control?: { size: number; value: number }[];
}

const files = process.argv.slice(2);
if (files.length < 2) {
  console.error('usage: tsx bench/compare.ts RESULT.json RESULT.json [...]');
  process.exit(2);
}
const runs = files.map((f) => ({ file: f, r: JSON.parse(readFileSync(f, 'utf8')) as Result }));
for (const { file, r } of runs) {
  if (!r.targets) throw new Error(`${file}: no targets (written by an older bench/run.ts)`);
}
const name = ({ r, file }: (typeof runs)[number]) => `${r.revision ? r.revision.commit.slice(0, 9) + (r.revision.dirty ? '+' : '') : path.basename(file, '.json')}`;
const key = (v: Verdict) => `${v.statement}|${v.size ?? ''}|${v.clients}`;
const keys = [...new Set(runs.flatMap(({ r }) => r.targets!.map(key)))];
const header = ['target', 'size', 'clients', ...runs.map(name)];
const rows = keys.map((k) => {
  const [statement, size, clients] = k.split('|');
  return [
    statement,
    size ? sizeLabel(Number(size)) : '',
    clients,
    ...runs.map(({ r }) => {
      const v = r.targets!.find((x) => key(x) === k);
      if (!v || v.value === undefined) return '-';
      return `${v.value}${v.met === false ? ' MISSED' : ' met'}`;
    }),
  ];
});
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd();
console.log([line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n'));
console.log('');
for (const run of runs) {
  const c = run.r.control ?? [];
  console.log(`${name(run)} (${run.r.startedAt}${run.r.apiDir ? `, ${run.r.apiDir}` : ''}): A/A ${c.length ? c.map((x) => `${x.size} nodes ${x.value}`).join(', ') : 'not measured'}`);
}
