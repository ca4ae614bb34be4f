import { LRUCache } from 'lru-cache';
import type { Principal, Role } from '../auth/caller.js';

/** A key's access to one workspace: who it is, and its role there (undefined: the key is unknown). */
export interface Access {
  principal?: Principal;
  role?: Role;
}

/**
 * Access answers per (key, workspace), so that the hot path never reads Neo4j. An answer is trusted only by a
 * request that read, in its gate round trip, the same workspace auth epoch it was loaded under; every
 * committed change that can take access to a workspace away replaces that epoch (RequestGate.accessChanged),
 * so a request that starts after the change reloads, on every process, and an answer loaded under an old epoch
 * (a slow request racing the change) is never served later. Epochs are random, so a Redis that lost its data
 * cannot bring an old one back. Only answers a workspace's epoch covers are kept: a member's access and an
 * unknown key, never "valid key, not a member" (revoking a user's key replaces the epochs of the user's own
 * workspaces only).
 */
export class AccessCache {
  private readonly entries: LRUCache<string, { epoch: string; access: Access }>;

  constructor(options: { max?: number; ttlMs?: number } = {}) {
    // The TTL only bounds memory and the damage of an access change whose Redis signal failed.
    this.entries = new LRUCache({ max: options.max ?? 100_000, ttl: options.ttlMs ?? 60_000 });
  }

  get(keyHash: string, workspaceId: string, epoch: string): Access | undefined {
    const hit = this.entries.get(`${keyHash}|${workspaceId}`);
    return hit?.epoch === epoch ? hit.access : undefined;
  }

  set(keyHash: string, workspaceId: string, epoch: string, access: Access): void {
    if (access.principal && !access.role) return;
    this.entries.set(`${keyHash}|${workspaceId}`, { epoch, access });
  }

  clear(): void {
    this.entries.clear();
  }
}
