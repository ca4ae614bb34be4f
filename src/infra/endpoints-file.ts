import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { RedisTarget } from './redis.js';

/** Where a process finds Neo4j and Redis. */
export interface Endpoints {
  neo4jUri: string;
  redis: RedisTarget;
}

/**
 * DATA_DIR/endpoints.json: a process that started its own Neo4j and redis-server records them here (their ports are
 * chosen at random) for the other processes on the same data folder, the CLI above all.
 */
const fileIn = (dataDir: string) => path.join(dataDir, 'endpoints.json');

export function recordEndpoints(dataDir: string, endpoints: Endpoints): void {
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(fileIn(dataDir), JSON.stringify({ neo4jUri: endpoints.neo4jUri, redis: endpoints.redis, pid: process.pid }, null, 2));
}

/** The endpoints recorded in dataDir while the process that recorded them runs; a file left by one that died is ignored. */
export function recordedEndpoints(dataDir: string): Endpoints | undefined {
  let text: string;
  try {
    text = readFileSync(fileIn(dataDir), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const recorded = JSON.parse(text) as Endpoints & { pid?: number };
  if (recorded.pid !== undefined && !isRunning(recorded.pid)) return undefined;
  return { neo4jUri: recorded.neo4jUri, redis: recorded.redis };
}

export function forgetEndpoints(dataDir: string): void {
  rmSync(fileIn(dataDir), { force: true });
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it runs, under another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
