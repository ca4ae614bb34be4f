import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { cypherDir } from './cypher-files.js';
import type { GraphExecutor } from './neo4j.js';

export interface Migration {
  version: number;
  description: string;
  checksum: string;
  statements: string[];
}

const fileName = /^V(\d{3,})__([A-Za-z0-9_]+)\.cypher$/;

/** Splits a migration file on semicolons that end a line; `//` comment lines are dropped. */
function statementsOf(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => !line.trim().startsWith('//'))
    .join('\n')
    .split(/;\s*$/m)
    .map((s) => s.trim())
    .filter(Boolean);
}

export function loadMigrations(dir = path.join(cypherDir, 'migrations')): Migration[] {
  return readdirSync(dir)
    .map((name) => ({ name, match: fileName.exec(name) }))
    .filter((f) => f.match)
    .map(({ name, match }) => {
      const text = readFileSync(path.join(dir, name), 'utf8');
      return {
        version: Number(match![1]),
        description: match![2].replace(/_/g, ' '),
        checksum: createHash('sha256').update(text).digest('hex'),
        statements: statementsOf(text),
      };
    })
    .sort((a, b) => a.version - b.version);
}

/**
 * Applies, in order, the migrations the graph has not recorded yet, and records each as a
 * (:__Migration) node. Every statement is idempotent (IF NOT EXISTS), so two processes starting at
 * once both get through: the loser of a race re-runs statements that are already in place.
 * An applied migration whose file changed since is refused: migrations are never edited.
 */
/**
 * IF NOT EXISTS is checked before the schema lock is taken, so a process racing another can still be
 * told the rule already exists: that is the outcome it wanted.
 */
async function applyIdempotently(graph: GraphExecutor, statement: string): Promise<void> {
  try {
    await graph.runMigrationStatement(statement);
  } catch (err) {
    const code = (err as { cause?: { code?: string }; code?: string }).cause?.code ?? (err as { code?: string }).code ?? '';
    if (!/^Neo\.ClientError\.Schema\.\w*AlreadyExists$/.test(code)) throw err;
  }
}

export async function migrate(graph: GraphExecutor, migrations = loadMigrations()): Promise<number[]> {
  // Start-up may wait for the database as long as it takes: a request's read deadline does not apply.
  const rows = await graph.runMigrationStatement(graph.text('migrations/applied'));
  const applied = new Map(rows.map((r) => [Number(r.version), String(r.checksum)]));
  const ran: number[] = [];
  for (const m of migrations) {
    const known = applied.get(m.version);
    if (known !== undefined) {
      if (known !== m.checksum) {
        throw new Error(`Migration V${m.version} was edited after it was applied; add a new migration instead`);
      }
      continue;
    }
    for (const statement of m.statements) await applyIdempotently(graph, statement);
    await graph.write('migrations/record', { version: m.version, description: m.description, checksum: m.checksum, now: new Date().toISOString() });
    ran.push(m.version);
  }
  return ran;
}
