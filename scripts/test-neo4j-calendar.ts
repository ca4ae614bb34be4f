import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startNeo4j, startRedis } from '../src/infra/local-deps.js';

/**
 * Runs the test suite against the current calendar release of Neo4j (not the pinned 5.26 LTS), with
 * Cypher 25 as the database's default language: the project's Cypher must run unchanged on both.
 * Usage: tsx scripts/test-neo4j-calendar.ts [version] [mocha options…]   (JAVA21_HOME: a Java 21+ home; else one is
 * looked for). CI passes `--ignore 'test/console/**'`: the browser tests are run once, on the first leg.
 */
const args = process.argv.slice(2);
const version = (args[0] && !args[0].startsWith('-') ? args.shift() : undefined) ?? process.env.NEO4J_CALENDAR_VERSION ?? '2026.08.1';

function javaMajor(home: string): number {
  const probe = spawnSync(path.join(home, 'bin', 'java'), ['-version'], { encoding: 'utf8' });
  return Number(/version "(\d+)/.exec(probe.stderr ?? '')?.[1] ?? 0);
}

function findJava21(): string | undefined {
  if (process.env.JAVA21_HOME) return process.env.JAVA21_HOME;
  const root = '/usr/lib/jvm';
  if (!existsSync(root)) return undefined;
  return readdirSync(root)
    .map((d) => path.join(root, d))
    .filter((home) => existsSync(path.join(home, 'bin', 'java')))
    .sort()
    .reverse()
    .find((home) => javaMajor(home) >= 21);
}

async function main(): Promise<number> {
  const javaHome = findJava21();
  if (!javaHome) {
    process.stderr.write(`Neo4j ${version} needs Java 21 or newer: install one or set JAVA21_HOME.\n`);
    return 1;
  }
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'playbooks-calendar-'));
  process.stdout.write(`Neo4j ${version} on Java ${javaMajor(javaHome)} (${javaHome}), Cypher 25 by default; tests on Node ${process.version}\n`);
  const [neo4j, redis] = await Promise.all([
    startNeo4j({ dataDir, heap: '1g', pageCacheMb: 256, release: { version, javaHome }, settings: ['db.query.default_language=CYPHER_25'] }),
    startRedis({ dataDir }),
  ]);
  try {
    const run = spawnSync('npx', ['mocha', ...args, 'test/**/*.test.ts'], {
      stdio: 'inherit',
      env: { ...process.env, NEO4J_URI: neo4j.url, REDIS_URL: redis.url },
    });
    return run.status ?? 1;
  } finally {
    await Promise.all([neo4j.stop(), redis.stop()]);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
