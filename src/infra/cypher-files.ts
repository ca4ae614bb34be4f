import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from './project-root.js';

export const cypherDir = path.join(projectRoot, 'cypher');

/**
 * Every statement under cypher/queries, read once at start-up and named by its path without the
 * extension: cypher/queries/playbooks/create.cypher is 'playbooks/create'. The saved reports under
 * cypher/reports are named 'reports/<name>' and kept as written (their header comments describe them).
 */
export class QueryCatalog {
  private readonly texts = new Map<string, string>();

  constructor(dir = path.join(cypherDir, 'queries'), reportsDir: string | undefined = path.join(cypherDir, 'reports')) {
    this.load(dir, '', compact);
    if (reportsDir && existsSync(reportsDir)) this.load(reportsDir, 'reports/', (text) => text);
  }

  private load(dir: string, prefix: string, prepare: (text: string) => string): void {
    for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith('.cypher')) continue;
      const full = path.join(entry.parentPath, entry.name);
      const name = prefix + path.relative(dir, full).replace(/\\/g, '/').replace(/\.cypher$/, '');
      this.texts.set(name, prepare(readFileSync(full, 'utf8')));
    }
  }

  get(name: string): string {
    const text = this.texts.get(name);
    if (text === undefined) throw new Error(`No Cypher statement named '${name}' under cypher/queries`);
    return text;
  }

  names(): string[] {
    return [...this.texts.keys()].sort();
  }
}

/**
 * A statement as it is sent: without its comment lines and indentation. Every statement travels with each run
 * and is decoded by Neo4j each time, and the comments are most of many statements' text.
 */
function compact(text: string): string {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('//'))
    .join('\n');
}
