// npm run build: dist/ (ES modules bundled by esbuild, declarations by tsc), then the minified size of what an
// application ships, checked against the package's budget.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const budget = 40 * 1024;
const entryPoints = { index: 'src/index.ts', api: 'src/api.ts' };
const common = { absWorkingDir: root, bundle: true, format: 'esm', platform: 'neutral', target: 'es2022', logLevel: 'warning' };
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;

rmSync(path.join(root, 'dist'), { recursive: true, force: true });
await build({ ...common, entryPoints, outdir: 'dist', splitting: true, chunkNames: 'chunks/[name]-[hash]' });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });

let over = false;
for (const [name, entry] of Object.entries(entryPoints)) {
  // Types are erased by the build, the generated ones included: what remains is the code an application ships.
  const minified = await build({ ...common, entryPoints: [entry], minify: true, write: false });
  const bytes = minified.outputFiles[0].contents;
  process.stdout.write(`${name}: ${kb(bytes.length)} minified, ${kb(gzipSync(bytes).length)} gzipped (budget ${kb(budget)} minified)\n`);
  if (bytes.length > budget) over = true;
}
if (over) {
  process.stderr.write('over the size budget\n');
  process.exit(1);
}
