import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A build or a pack that hangs fails instead of holding the requests waiting for it. */
const stepTimeoutMs = 5 * 60_000;

async function npm(args: string[], cwd: string): Promise<string> {
  try {
    return (await run('npm', args, { cwd, timeout: stepTimeoutMs, maxBuffer: 16 * 1024 * 1024 })).stdout;
  } catch (err) {
    const { stdout, stderr } = err as { stdout?: string; stderr?: string };
    throw new Error(`npm ${args.join(' ')} in ${cwd} failed: ${[stderr, stdout].filter(Boolean).join('\n').trim()}`, { cause: err });
  }
}

/**
 * The npm package in `dir` as a tarball (`npm pack`) whose version is `version`. The package's own `build` script
 * builds it into a temporary folder (`-- --outDir`), so the checkout's files are never touched and two processes
 * packing at once do not meet; the published manifest keeps neither the scripts nor the dev dependencies.
 */
export async function packPackage(dir: string, version: string): Promise<Buffer> {
  const stage = await mkdtemp(path.join(os.tmpdir(), 'playbooks-pack-'));
  try {
    await npm(['run', '--silent', 'build', '--', '--outDir', path.join(stage, 'dist')], dir);
    const { scripts: _scripts, devDependencies: _dev, ...manifest } = JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8'));
    await writeFile(path.join(stage, 'package.json'), `${JSON.stringify({ ...manifest, version }, null, 2)}\n`);
    // What `files` lists besides the build's output (the README), as the checkout has it.
    for (const entry of (manifest.files ?? []) as string[]) {
      if (!existsSync(path.join(stage, entry)) && existsSync(path.join(dir, entry))) await cp(path.join(dir, entry), path.join(stage, entry), { recursive: true });
    }
    const [packed] = JSON.parse(await npm(['pack', '--ignore-scripts', '--json', '--pack-destination', stage], stage)) as { filename: string }[];
    return await readFile(path.join(stage, packed.filename));
  } finally {
    await rm(stage, { recursive: true, force: true });
  }
}
