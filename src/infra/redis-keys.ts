/** Every Redis key and channel the service uses, named in one place. */
export const redisKeys = {
  /** Replaced after every committed change that can take access away; see Authenticator. */
  authEpoch: 'auth:epoch',
  authChannel: 'auth:invalidate',
  revokedKey: (keyHash: string) => `auth:revoked:${keyHash}`,
  /** Retrievals counted for a workspace in a calendar month (UTC), `YYYY-MM`. */
  quota: (workspaceId: string, period: string) => `quota:${workspaceId}:${period}`,
  /** The monthly retrieval limit in force for a workspace (cached from Neo4j and configuration). */
  quotaLimit: (workspaceId: string) => `quota-limit:${workspaceId}`,
  /** Replaced (with a random value) after every committed change to a workspace's playbooks, versions, nodes, links or annotations. */
  graphGeneration: (workspaceId: string) => `gen:${workspaceId}`,
  rateLimit: (keyId: string, minute: number) => `rate:${keyId}:${minute}`,
} as const;
