import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder holding package.json, found from this file so that src/ (tsx) and dist/src/ (built) agree. */
function findProjectRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('package.json not found above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
  return dir;
}

export const projectRoot = findProjectRoot();

/** The service's version (its package.json's): what the MCP server reports, and the version of the packages it serves. */
export const serviceVersion: string = JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')).version;
