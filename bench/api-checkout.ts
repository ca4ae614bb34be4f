/**
 * The checkout whose API is measured (--api-dir, by default this one). The harness (data, load drivers,
 * baselines, Neo4j, Redis) is always this checkout's, so that an older commit and the current one can be
 * measured by the same code in the same session: only the API process and the raw-driver floor's Cypher
 * come from the checkout under test.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../src/infra/project-root.js';
import { type Revision, revision } from './machine.js';

export interface ApiCheckout {
  dir: string;
  /** The built entry point the API process runs. */
  serverJs: string;
  /** The commit of the code under test; BENCH_REVISION names it for a copy that is not a checkout. */
  revision?: Revision;
  /** True when the API under test is this checkout's own. */
  isHarness: boolean;
}

export function prepareApiCheckout(dir: string, build: boolean): ApiCheckout {
  const abs = path.resolve(dir);
  if (!existsSync(path.join(abs, 'package.json'))) throw new Error(`--api-dir ${abs}: no package.json there`);
  if (!existsSync(path.join(abs, 'cypher', 'queries'))) throw new Error(`--api-dir ${abs}: no cypher/queries there; is it a checkout of this project?`);
  if (build) {
    if (!existsSync(path.join(abs, 'node_modules'))) throw new Error(`--api-dir ${abs}: no node_modules to build with (npm ci there, or link this checkout's node_modules)`);
    console.log(`building the API in ${abs} (npm run build)`);
    const b = spawnSync('npm', ['run', 'build', '--silent'], { cwd: abs, stdio: 'inherit' });
    if (b.status !== 0) throw new Error(`npm run build failed in ${abs}`);
  }
  const serverJs = path.join(abs, 'dist', 'src', 'server.js');
  if (!existsSync(serverJs)) throw new Error(`${serverJs} is missing: build it (leave out --no-build)`);
  return { dir: abs, serverJs, revision: revision(abs, process.env.BENCH_REVISION), isHarness: abs === path.resolve(projectRoot) };
}
