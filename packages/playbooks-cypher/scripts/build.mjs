// npm run build [-- --outDir DIR]: the shell the repository runs as `npm run cypher` (src/cypher-shell.ts), with the
// client it uses (@playbooks/client, from sdk/src), bundled by esbuild into one file of plain JavaScript in DIR
// (dist/ unless given): the package installs with no dependency and starts without compiling anything. esbuild is
// the repository's own (the client's build uses it too). The service packs this package for download with --outDir
// (src/downloads/).
import { chmodSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const repository = path.resolve(root, '..', '..');
const { values: options } = parseArgs({ options: { outDir: { type: 'string' } } });
const outdir = path.resolve(root, options.outDir ?? 'dist');
const outfile = path.join(outdir, 'playbooks-cypher.js');

rmSync(outdir, { recursive: true, force: true });
await build({
  absWorkingDir: repository,
  entryPoints: ['src/cypher-shell.ts'],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // @playbooks/client as the repository's TypeScript resolves it: its sources, so that no build of sdk/ is needed.
  tsconfig: path.join(repository, 'tsconfig.json'),
  banner: { js: '#!/usr/bin/env node' },
  legalComments: 'none',
  logLevel: 'warning',
});
chmodSync(outfile, 0o755);
