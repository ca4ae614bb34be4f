// Revokes one key of an agent (idempotent: revoking again keeps the first revokedAt and returns the hash,
// so the caller can signal the revocation again). Params: $workspaceId, $agentId, $keyId, $now.
// Columns: hash, wasActive (false when it was revoked already). No row: no such key of that agent in this workspace.
MATCH (:Agent {id: $agentId, workspaceId: $workspaceId})-[:HAS_KEY]->(k:ApiKey {id: $keyId})
WITH k, k.revokedAt IS NULL AS wasActive
SET k.revokedAt = coalesce(k.revokedAt, $now)
RETURN k.hash AS hash, wasActive
