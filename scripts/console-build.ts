import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { consoleDir } from '../src/console/routes.js';
import { projectRoot } from '../src/infra/project-root.js';

/**
 * Builds the console when its build is missing or older than its sources (console/, sdk/src/): the browser
 * tests (test/console/) need it, and `npm test` should not spend a build when nothing changed.
 */
function newest(target: string): number {
  const stat = statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const entry of readdirSync(target)) {
    if (entry === 'node_modules' || entry === 'dist') continue;
    latest = Math.max(latest, newest(path.join(target, entry)));
  }
  return latest;
}

const built = path.join(consoleDir, 'index.html');
const sources = Math.max(newest(path.join(projectRoot, 'console')), newest(path.join(projectRoot, 'sdk', 'src')));
if (!existsSync(built) || statSync(built).mtimeMs < sources) {
  execFileSync('npx', ['vite', 'build', '--config', 'console/vite.config.ts', '--logLevel', 'warn'], { cwd: projectRoot, stdio: 'inherit' });
}
