import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient, type UserConfig } from '@hey-api/openapi-ts';
import { projectRoot } from '../src/infra/project-root.js';
import { openApiText } from './openapi-document.js';

/**
 * npm run sdk:generate: writes the service's OpenAPI document to sdk/openapi.json, then generates the client's
 * types and low-level calls from it into sdk/src/generated (committed).
 * With --check it writes both to a temporary folder instead and exits 1 if they differ from the committed ones.
 */
const sdk = path.join(projectRoot, 'sdk');
const committed = { document: path.join(sdk, 'openapi.json'), generated: path.join(sdk, 'src', 'generated') };

async function generate(document: string, output: string): Promise<void> {
  const config = (await import(path.join(sdk, 'openapi-ts.config.mjs'))).default as UserConfig;
  const base = typeof config.output === 'object' && !Array.isArray(config.output) ? config.output : {};
  writeFileSync(document, await openApiText());
  await createClient({ ...config, input: document, output: { ...base, path: output }, logs: { level: 'warn', file: false } });
}

/** Relative path → content of every file under dir. */
function tree(dir: string, prefix = ''): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const rel = path.join(prefix, entry.name);
    if (entry.isDirectory()) for (const [k, v] of tree(path.join(dir, entry.name), rel)) files.set(k, v);
    else files.set(rel, readFileSync(path.join(dir, entry.name), 'utf8'));
  }
  return files;
}

async function check(): Promise<number> {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'sdk-generate-'));
  try {
    const fresh = { document: path.join(scratch, 'openapi.json'), generated: path.join(scratch, 'generated') };
    await generate(fresh.document, fresh.generated);
    const stale: string[] = [];
    if (readFileSync(fresh.document, 'utf8') !== readFileSync(committed.document, 'utf8')) stale.push('sdk/openapi.json');
    const [want, have] = [tree(fresh.generated), tree(committed.generated)];
    for (const file of new Set([...want.keys(), ...have.keys()])) {
      if (want.get(file) !== have.get(file)) stale.push(`sdk/src/generated/${file}`);
    }
    if (stale.length === 0) return 0;
    process.stderr.write(`The generated client is not what the current OpenAPI document generates; run npm run sdk:generate. Differs: ${stale.join(', ')}\n`);
    return 1;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (process.argv.includes('--check')) {
  process.exitCode = await check();
} else {
  await generate(committed.document, committed.generated);
  process.stdout.write(`wrote ${path.relative(projectRoot, committed.document)} and ${path.relative(projectRoot, committed.generated)}/\n`);
}
