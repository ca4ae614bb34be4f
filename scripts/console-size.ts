import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { consoleDir } from '../src/console/routes.js';

/**
 * Prints the built console's size: every asset, and the JavaScript the first page load fetches (the entry
 * script and its preloaded chunks), gzipped. Fails when the initial JavaScript is over its budget.
 */
const budgetKb = 300;
const assets = path.join(consoleDir, 'assets');
const gz = (file: string) => gzipSync(readFileSync(path.join(assets, file)), { level: 9 }).length;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

const html = readFileSync(path.join(consoleDir, 'index.html'), 'utf8');
const initial = [...html.matchAll(/(?:src|href)="\/console\/assets\/([^"]+\.js)"/g)].map((m) => m[1]);
const files = readdirSync(assets);
const js = files.filter((f) => f.endsWith('.js'));
const css = files.filter((f) => f.endsWith('.css'));
const sum = (list: string[]) => list.reduce((n, f) => n + gz(f), 0);
const initialGz = sum(initial);

console.log('console size (gzipped):');
for (const f of [...js, ...css].sort((a, b) => gz(b) - gz(a))) console.log(`  ${f.padEnd(40)} ${kb(gz(f)).padStart(10)}${initial.includes(f) ? '  (initial)' : ''}`);
console.log(`  total: ${kb(sum(js) + sum(css))} (JavaScript ${kb(sum(js))}, CSS ${kb(sum(css))})`);
console.log(`  initial JavaScript: ${kb(initialGz)} (budget ${budgetKb} KB)`);
if (initialGz > budgetKb * 1024) {
  console.error(`the console's initial JavaScript is over ${budgetKb} KB gzipped`);
  process.exit(1);
}
