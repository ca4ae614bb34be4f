/**
 * Every Redis key the service uses, named in one place. A workspace's keys share its hash tag
 * (`{workspaceId}`), so they live in one Redis Cluster slot and one script may touch them all; a key's rate
 * counter is tagged by the key. No key is global.
 */
export const redisKeys = {
  /** Replaced after every committed change that can take access to the workspace away (see AccessCache). */
  authEpoch: (workspaceId: string) => `{${workspaceId}}:auth-epoch`,
  /** Set when a key that could reach the workspace is revoked: refused without a Neo4j read. */
  revokedKey: (workspaceId: string, keyHash: string) => `{${workspaceId}}:revoked:${keyHash}`,
  /** Replaced after every committed change to the workspace's playbooks, versions, nodes, links or annotations. */
  graphGeneration: (workspaceId: string) => `{${workspaceId}}:generation`,
  /** Retrievals counted for a workspace in a calendar month (UTC), `YYYY-MM`. */
  quota: (workspaceId: string, period: string) => `{${workspaceId}}:quota:${period}`,
  /** Retrievals counted for a workspace on a calendar day (UTC), `YYYY-MM-DD`: the usage endpoint's days, never a limit. */
  quotaDay: (workspaceId: string, day: string) => `{${workspaceId}}:quota-day:${day}`,
  /** The monthly retrieval limit in force for a workspace (cached from Neo4j and configuration). */
  quotaLimit: (workspaceId: string) => `{${workspaceId}}:quota-limit`,
  /**
   * The bookmarks of the workspace's latest writes through any API process, newest first and a few of them: a
   * request's reads start with them, so a Neo4j secondary answers only once it has those writes.
   */
  bookmarks: (workspaceId: string) => `{${workspaceId}}:bookmarks`,
  /**
   * What one call of the gate's script counted and answered, kept for a minute: a call that ioredis sends again
   * after its answer was lost (a failover) gets the same answer instead of counting twice.
   */
  gateCall: (workspaceId: string, callId: string) => `{${workspaceId}}:gate-call:${callId}`,
  rateLimit: (keyHash: string, minute: number) => `{${keyHash}}:rate:${minute}`,
  /** A POST's Idempotency-Key, per workspace and caller key (the key itself hashed: it is the client's text). */
  idempotency: (workspaceId: string, callerKeyId: string, keyHash: string) => `{${workspaceId}}:idempotency:${callerKeyId}:${keyHash}`,
} as const;
