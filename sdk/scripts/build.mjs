// npm run build [-- --outDir DIR]: DIR (dist/ unless given) gets ES modules (.js) and CommonJS (.cjs) bundled by
// esbuild, declarations by tsc for both (.d.ts, .d.cts), then the minified size of what an application ships is
// checked against the package's budget. The service packs the client for download with --outDir (src/downloads/).
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const { values: options } = parseArgs({ options: { outDir: { type: 'string' } } });
const outdir = path.resolve(root, options.outDir ?? 'dist');
// The facade wraps every operation a client calls, the analysts' and the operator's too (about 4 KB of the 44).
const budget = 48 * 1024;
const entryPoints = { index: 'src/index.ts', api: 'src/api.ts' };
const common = { absWorkingDir: root, bundle: true, format: 'esm', platform: 'neutral', target: 'es2022', logLevel: 'warning' };
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;

rmSync(outdir, { recursive: true, force: true });
await build({ ...common, entryPoints, outdir, splitting: true, chunkNames: 'chunks/[name]-[hash]' });
// CommonJS has no shared chunks: each entry point is one whole file, for `require`.
await build({ ...common, format: 'cjs', entryPoints, outdir, outExtension: { '.js': '.cjs' } });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', outdir], { cwd: root, stdio: 'inherit' });

// In a "type": "module" package TypeScript reads every .d.ts as an ES module's, which a CommonJS program may not
// import: the same declarations as .d.cts, their relative imports naming the .cjs files, describe the require entry.
const relativeJs = /(from\s+|import\()(['"])(\.{1,2}\/[^'"]+)\.js\2/g;
for (const entry of readdirSync(outdir, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !entry.name.endsWith('.d.ts')) continue;
  const file = path.join(entry.parentPath, entry.name);
  writeFileSync(file.replace(/\.d\.ts$/, '.d.cts'), readFileSync(file, 'utf8').replace(relativeJs, '$1$2$3.cjs$2'));
}

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
