/** Tables for the console and for markdown, and the result files under bench/results/. */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Stats } from './load.js';
import type { Run, ScalingRun, SizeResult } from './rounds.js';
import { CLIENTS_304, SCENARIO_NAMES, type Scenario, def, label } from './scenarios.js';
import type { Evaluation, Ratio, Verdict } from './targets.js';

export const fmt = (x: number | undefined, digits = 1) => (x !== undefined && Number.isFinite(x) ? x.toFixed(digits) : '-');
export const kb = (b: number) => `${(b / 1024).toFixed(1)} KB`;
export const mb = (b: number) => `${(b / 2 ** 20).toFixed(0)} MB`;
export const sizeLabel = (n: number) => (n >= 1000 && n % 1000 === 0 ? `${n / 1000}k` : String(n));

/** Answers other than the scenario's expected one, and errors, e.g. ` !12×500`. */
export function statusNote(s: Stats, scenario: Scenario): string {
  const other = Object.entries(s.status).filter(([code, n]) => code !== def(scenario).expect && n > 0);
  const parts = other.map(([code, n]) => `${n}×${code}`);
  if (s.errors) parts.push(`${s.errors} errors`);
  return parts.length ? ` !${parts.join(',')}` : '';
}

const latencies = (s: Stats) => `${fmt(s.p50, 2)} / ${fmt(s.p95, 2)} / ${fmt(s.p99, 2)}`;

/** The line printed as soon as a scenario is measured. */
export function runLine(r: Run): string {
  const c = r.cpu.msPerRequest;
  const s = r.stats;
  return (
    `  ${label(r.scenario).padEnd(34)} ${String(r.clients).padStart(3)} cl.  p50 ${fmt(s.p50, 2).padStart(7)}  p95 ${fmt(s.p95, 2).padStart(7)}  p99 ${fmt(s.p99, 2).padStart(7)} ms  ${fmt(s.rps, 0).padStart(6)} req/s` +
    (r.rssPeak ? `  rss ${mb(r.rssPeak)}` : '') +
    `  cpu ms/req: ${c.proc !== undefined ? `proc ${fmt(c.proc, 3)} ` : ''}neo4j ${fmt(c.neo4j, 3)} redis ${fmt(c.redis, 3)} driver ${fmt(c.loadDriver, 3)}; other procs ${r.cpu.foreignPct}%` +
    statusNote(s, r.scenario)
  );
}

export function scalingLine(r: ScalingRun): string {
  return `  ${label(r.scenario).padEnd(34)} ${sizeLabel(r.nodes).padStart(5)}  p50 ${fmt(r.stats.p50, 2).padStart(7)}  p95 ${fmt(r.stats.p95, 2).padStart(7)}  p99 ${fmt(r.stats.p99, 2).padStart(7)} ms  ${fmt(r.stats.rps, 0).padStart(6)} req/s`;
}

const measuredScenarios = (size: SizeResult) => SCENARIO_NAMES.filter((sc) => size.runs.some((r) => r.scenario === sc));
const findRun = (size: SizeResult, sc: Scenario, c: number) => size.runs.find((r) => r.scenario === sc && r.clients === c);

/** p50/p95/p99 and req/s per scenario (rows) and client count (columns). */
export function sizeTable(size: SizeResult, clients: number[], markdown: boolean): string[] {
  const lines: string[] = [];
  if (markdown) {
    lines.push(`| scenario | ${clients.map((c) => `${c} cl. p50 / p95 / p99 ms | ${c} cl. req/s`).join(' | ')} |`);
    lines.push(`|---|${clients.map(() => '---|---:').join('|')}|`);
  } else {
    lines.push(`${'scenario'.padEnd(34)}${clients.map((c) => `| ${`${c} client${c > 1 ? 's' : ''}: p50/p95/p99 ms`.padEnd(30)}${'req/s'.padStart(8)} `).join('')}`);
  }
  for (const sc of measuredScenarios(size)) {
    const cells = clients.map((c) => {
      const s = findRun(size, sc, c)?.stats;
      if (!s) return markdown ? ['', ''] : [''.padEnd(30), ''.padStart(8)];
      const lat = `${latencies(s)}${statusNote(s, sc)}`;
      return markdown ? [lat, fmt(s.rps, 0)] : [lat.padEnd(30), fmt(s.rps, 0).padStart(8)];
    });
    if (markdown) lines.push(`| ${label(sc)} | ${cells.map(([a, b]) => `${a} | ${b}`).join(' | ')} |`);
    else lines.push(`${label(sc).padEnd(34)}${cells.map(([a, b]) => `| ${a}${b} `).join('')}`);
  }
  return lines;
}

/** CPU ms per request of the process under test, Neo4j, Redis and the load driver; and the machine's noise. */
export function cpuTable(size: SizeResult, clients: number[]): string[] {
  const lines = [
    `| CPU ms per request: server / Neo4j / Redis / load driver (other processes' share of the machine) | ${clients.map((c) => `${c} cl.`).join(' | ')} |`,
    `|---|${clients.map(() => '---').join('|')}|`,
  ];
  for (const sc of measuredScenarios(size)) {
    const cells = clients.map((c) => {
      const r = findRun(size, sc, c);
      if (!r) return '';
      const m = r.cpu.msPerRequest;
      return `${m.proc === undefined ? '–' : fmt(m.proc, 3)} / ${fmt(m.neo4j, 3)} / ${fmt(m.redis, 3)} / ${fmt(m.loadDriver, 3)} (${r.cpu.foreignPct}%)`;
    });
    lines.push(`| ${label(sc)} | ${cells.join(' | ')} |`);
  }
  return lines;
}

export function ratioTable(rs: Ratio[]): string[] {
  return [
    '| ratio | size | clients | value | target | met |',
    '|---|---|---|---:|---|---|',
    ...rs.map((r) => `| ${r.name} | ${r.size ? sizeLabel(r.size) : ''} | ${r.clients} | ${r.value} | ${r.target ? `${r.target.op} ${r.target.limit}` : ''} | ${r.met === undefined ? '' : r.met ? 'met' : 'MISSED'} |`),
  ];
}

const verdictWord = (v: Verdict) => (v.met === undefined ? 'not measured' : v.met ? 'met' : 'MISSED');
const figure = (x: number | undefined, metric: string) => fmt(x, metric === 'req/s' ? 0 : 2);

/** The final table: one line per target (and size where it is judged on every size), the A/A control below. */
export function verdictTable(ev: Evaluation, markdown: boolean): string[] {
  const rows = ev.verdicts.map((v) => [
    v.statement,
    v.size ? sizeLabel(v.size) : '',
    String(v.clients),
    v.a !== undefined || v.b !== undefined ? `${figure(v.a, v.metric)} / ${figure(v.b, v.metric)} ${v.metric === 'p95' ? 'ms p95' : v.metric}` : v.baseline ? '' : v.scenario,
    fmt(v.value, v.metric === 'MB' ? 0 : 2),
    `${v.op} ${v.limit}`,
    verdictWord(v),
    v.note ?? '',
  ]);
  const head = ['target', 'size', 'clients', 'scenario / baseline', 'ratio', 'target', 'verdict', 'note'];
  const control = ev.control.length
    ? `A/A control (2nd bare Koa constant process / 1st, req/s, ${CLIENTS_304} clients): ${ev.control.map((c) => `${sizeLabel(c.size)} ${c.value.toFixed(2)}`).join(', ')}; a ratio between two processes is no more precise than this.`
    : 'A/A control not measured (scenario bare-koa-constant-2): the noise of these ratios is unknown.';
  if (markdown) {
    return [`| ${head.join(' | ')} |`, `|${head.map((_, i) => (i === 4 ? '---:' : '---')).join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`), '', control];
  }
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 4 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ').trimEnd();
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line), '', control];
}

export function writeResults(dir: string, stamp: string, json: unknown, md: string[]): string {
  const jsonFile = path.join(dir, `${stamp}.json`);
  writeFileSync(jsonFile, JSON.stringify(json, null, 2));
  writeFileSync(path.join(dir, `${stamp}.md`), md.join('\n') + '\n');
  return jsonFile;
}
