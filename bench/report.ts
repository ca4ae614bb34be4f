/** Tables for the console and for markdown, and the result files under bench/results/. */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../src/infra/project-root.js';
import type { Measured } from './load.js';
import { CLIENTS_304, type Run, SCENARIO_NAMES, type SizeResult, type Verdict, def } from './targets.js';

export const fmt = (x: number | undefined, digits = 1) => (x !== undefined && Number.isFinite(x) ? x.toFixed(digits) : '-');
export const sizeLabel = (n: number) => (n >= 1000 && n % 1000 === 0 ? `${n / 1000}k` : String(n));
export const mb = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MB`;

/** Answers other than the expected one, and errors: ` !12×500`. */
function unexpected(m: Measured, expect: string): string {
  const parts = Object.entries(m.stats.status).filter(([code, n]) => code !== expect && n > 0).map(([code, n]) => `${n}×${code}`);
  if (m.stats.errors) parts.push(`${m.stats.errors} errors`);
  return parts.length ? ` !${parts.join(',')}` : '';
}

const cpu = (c: Measured['cpuMsPerRequest']) => `${c.proc !== undefined ? `server ${fmt(c.proc, 3)} ` : ''}neo4j ${fmt(c.neo4j, 3)} redis ${fmt(c.redis, 3)} driver ${fmt(c.loadDriver, 3)}`;

/** The line printed as soon as a scenario is measured. */
export function runLine(r: Run): string {
  const s = r.stats;
  return `  ${def(r.scenario).label.padEnd(34)} ${String(r.clients).padStart(3)} cl.  p50 ${fmt(s.p50, 2).padStart(7)}  p95 ${fmt(s.p95, 2).padStart(7)}  p99 ${fmt(s.p99, 2).padStart(7)} ms  ${fmt(s.rps, 0).padStart(6)} req/s` +
    `${r.rssPeak ? `  rss ${mb(r.rssPeak)}` : ''}  cpu ms/req: ${cpu(r.cpuMsPerRequest)}; other procs ${r.foreignPct}%${unexpected(r, def(r.scenario).expect)}`;
}

/** Rows as aligned columns on the console, or a markdown table; `align` has an l or r per column (default: l, then r). */
export function table(head: string[], rows: string[][], markdown: boolean, align = 'l'.padEnd(head.length, 'r')): string[] {
  if (markdown) return [`| ${head.join(' | ')} |`, `|${head.map((_, i) => (align[i] === 'r' ? '---:' : '---')).join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (align[i] === 'r' ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ').trimEnd();
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)];
}

/** One size: per scenario and client count, p50 / p95 / p99 ms, req/s and the server's CPU ms per request. */
export function sizeTable(r: SizeResult, clients: number[], markdown: boolean): string[] {
  const rows = SCENARIO_NAMES.filter((s) => r.runs.some((x) => x.scenario === s)).map((s) => [
    def(s).label,
    ...clients.flatMap((c) => {
      const x = r.runs.find((y) => y.scenario === s && y.clients === c);
      return x ? [`${fmt(x.stats.p50, 2)} / ${fmt(x.stats.p95, 2)} / ${fmt(x.stats.p99, 2)}${unexpected(x, def(s).expect)}`, fmt(x.stats.rps, 0), fmt(x.cpuMsPerRequest.proc, 3)] : ['', '', ''];
    }),
  ]);
  return table(['scenario', ...clients.flatMap((c) => [`${c} cl.: p50 / p95 / p99 ms`, 'req/s', 'server cpu ms/req'])], rows, markdown);
}

/** The final table: one line per target (and size where judged on every size), the A/A control below. */
export function verdictTable(verdicts: Verdict[], control: { size: number; value: number }[], markdown: boolean): string[] {
  const digits = (metric: string) => (metric === 'rps' ? 0 : metric === 'cpu' ? 3 : 2);
  const unit: Record<string, string> = { p95: 'ms p95', rps: 'req/s', cpu: 'cpu ms/req' };
  const rows = verdicts.map((v) => [
    v.statement,
    v.size ? sizeLabel(v.size) : '',
    String(v.clients),
    v.a !== undefined || v.b !== undefined ? `${fmt(v.a, digits(v.metric))} / ${fmt(v.b, digits(v.metric))} ${unit[v.metric] ?? ''}` : '',
    v.cpuA !== undefined || v.cpuB !== undefined ? `${fmt(v.cpuA, 3)} / ${fmt(v.cpuB, 3)}` : '',
    fmt(v.value, v.metric === 'MB' ? 0 : 2),
    `${v.op} ${v.limit}`,
    v.met === undefined ? 'not measured' : v.met ? 'met' : 'MISSED',
    v.note ?? '',
  ]);
  const aa = control.length
    ? `A/A control (2nd bare Koa constant process / 1st, req/s, ${CLIENTS_304} clients): ${control.map((c) => `${sizeLabel(c.size)} ${c.value.toFixed(2)}`).join(', ')}; a ratio between two processes is no more precise than this.`
    : 'A/A control not measured: the noise of these ratios is unknown.';
  return [...table(['target', 'size', 'clients', 'scenario / baseline', 'server cpu ms/req', 'ratio', 'bound', 'verdict', 'note'], rows, markdown, 'lrrrrrlll'), '', aa];
}

/** bench/results/<stamp>.json and .md (git-ignored); the path of the JSON. */
export function writeResults(stamp: string, json: object, md: string[]): string {
  const dir = path.join(projectRoot, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, `${stamp}.json`), JSON.stringify(json, null, 2));
  writeFileSync(path.join(dir, `${stamp}.md`), md.join('\n') + '\n');
  return path.relative(projectRoot, path.join(dir, `${stamp}.json`));
}
