import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from './project-root.js';

export const cypherDir = path.join(projectRoot, 'cypher');

/**
 * Every statement under cypher/queries, read once at start-up and named by its path without the
 * extension: cypher/queries/playbooks/create.cypher is 'playbooks/create'. The saved reports under
 * cypher/reports are named 'reports/<name>'. Each is kept as written (get) and as sent to Neo4j (toSend): a
 * statement of cypher/queries without its comments and indentation, a report as written (an analyst reads the
 * positions in its error messages against the file).
 */
export class QueryCatalog {
  private readonly texts = new Map<string, string>();
  private readonly sent = new Map<string, string>();

  /** `extra`: one more folder, its statements named `<prefix><path>` (the bench's own, kept under bench/cypher). */
  constructor(dir = path.join(cypherDir, 'queries'), reportsDir: string | undefined = path.join(cypherDir, 'reports'), extra?: { dir: string; prefix: string }) {
    this.load(dir, '', compact);
    if (reportsDir && existsSync(reportsDir)) this.load(reportsDir, 'reports/', (text) => text);
    if (extra) this.load(extra.dir, extra.prefix, compact);
  }

  private load(dir: string, prefix: string, prepare: (text: string) => string): void {
    for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith('.cypher')) continue;
      const full = path.join(entry.parentPath, entry.name);
      const name = prefix + path.relative(dir, full).replace(/\\/g, '/').replace(/\.cypher$/, '');
      const text = readFileSync(full, 'utf8');
      this.texts.set(name, text);
      this.sent.set(name, prepare(text));
    }
  }

  /** The statement as written, comments included. */
  get(name: string): string {
    return this.lookup(this.texts, name);
  }

  /** The statement as it is sent to Neo4j (see compact). */
  toSend(name: string): string {
    return this.lookup(this.sent, name);
  }

  private lookup(texts: Map<string, string>, name: string): string {
    const text = texts.get(name);
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
