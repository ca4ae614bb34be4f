import { LRUCache } from 'lru-cache';
import type { Principal, Role } from '../auth/caller.js';

/** A key's access to one workspace: who it is, and its role there (undefined: the key is unknown). */
export interface KeyAccess {
  principal?: Principal;
  role?: Role;
  /** When the key stops working (a rotated key in its grace period): the answer is never served past it. */
  expiresAt?: string;
}

/**
 * Access answers per (key, workspace), so that the hot path never reads Neo4j. An answer is trusted only by a
 * request that read, in its gate round trip, the same workspace auth epoch it was loaded under; every
 * committed change that can take access to a workspace away replaces that epoch (RequestGate.accessChanged),
 * so a request that starts after the change reloads, on every process, and an answer loaded under an old epoch
 * (a slow request racing the change) is never served later. Epochs are random, so a Redis that lost its data
 * cannot bring an old one back. Only answers a workspace's epoch covers are kept: a member's access and an
 * unknown key, never "valid key, not a member" (revoking a user's key replaces the epochs of the user's own
 * workspaces only). An answer for a key that expires (a rotated key in its grace period) lives no longer than
 * the key: no epoch changes when a grace period ends, so its end is checked on every hit.
 */
export class AccessCache {
  private readonly entries: LRUCache<string, { epoch: string; access: KeyAccess }>;
  private readonly ttlMs: number;

  constructor(options: { max?: number; ttlMs?: number } = {}) {
    // The TTL only bounds memory and the damage of an access change whose Redis signal failed.
    this.ttlMs = options.ttlMs ?? 60_000;
    this.entries = new LRUCache({ max: options.max ?? 100_000, ttl: this.ttlMs });
  }

  get(keyHash: string, workspaceId: string, epoch: string, now: Date): KeyAccess | undefined {
    const key = `${keyHash}|${workspaceId}`;
    const hit = this.entries.get(key);
    if (hit?.access.expiresAt && Date.parse(hit.access.expiresAt) <= now.getTime()) {
      this.entries.delete(key);
      return undefined;
    }
    return hit?.epoch === epoch ? hit.access : undefined;
  }

  set(keyHash: string, workspaceId: string, epoch: string, access: KeyAccess, now: Date): void {
    if (access.principal && !access.role) return;
    const left = access.expiresAt ? Date.parse(access.expiresAt) - now.getTime() : undefined;
    if (left !== undefined && left <= 0) return;
    // An expiring key's answer also leaves the cache by itself when the key expires.
    const ttl = left !== undefined ? Math.min(left, this.ttlMs) : undefined;
    this.entries.set(`${keyHash}|${workspaceId}`, { epoch, access }, ttl !== undefined ? { ttl } : undefined);
  }

  clear(): void {
    this.entries.clear();
  }
}
