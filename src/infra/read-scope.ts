import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What one request knows of the workspace's latest writes, for reads on a Neo4j cluster (see docs/scaling.md):
 * `bookmarks` are the workspace's latest writes as every API process recorded them in Redis, read in the
 * request's gate round trip; each of the request's reads starts with them, so a secondary answers it only once it
 * has those writes. `wrote` is set when the request committed a write, which the router then records for the
 * workspace unless a change signal already did (`published`).
 */
export interface ReadScope {
  bookmarks: string[];
  wrote: boolean;
  published: boolean;
}

const storage = new AsyncLocalStorage<ReadScope>();

/** Runs a request in a scope of its own. */
export function withReadScope<T>(work: () => T): T {
  return storage.run({ bookmarks: [], wrote: false, published: false }, work);
}

/** The scope of the request this code runs for (none outside a request: start-up, background work). */
export function readScope(): ReadScope | undefined {
  return storage.getStore();
}

/** Called after a write committed: the request's workspace has a newer write to record. */
export function noteWrite(): void {
  const scope = storage.getStore();
  if (scope) scope.wrote = true;
}
