// The active keys of an agent, oldest first; never the hash. A rotated key is listed until it expires.
// Params: $workspaceId, $agentId, $now. Columns: key {id, label, prefix, createdAt, lastUsedAt, expiresAt}.
MATCH (:Agent {id: $agentId, workspaceId: $workspaceId})-[:HAS_KEY]->(k:ApiKey)
WHERE k.revokedAt IS NULL AND (k.expiresAt IS NULL OR k.expiresAt > $now)
RETURN k {.id, .label, .prefix, .createdAt, .lastUsedAt, .expiresAt} AS key
ORDER BY k.createdAt, k.id
