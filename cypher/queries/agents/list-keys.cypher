// The active keys of an agent, oldest first; never the hash. Params: $workspaceId, $agentId.
// Columns: key {id, label, prefix, createdAt, lastUsedAt}.
MATCH (:Agent {id: $agentId, workspaceId: $workspaceId})-[:HAS_KEY]->(k:ApiKey)
WHERE k.revokedAt IS NULL
RETURN k {.id, .label, .prefix, .createdAt, .lastUsedAt} AS key
ORDER BY k.createdAt, k.id
