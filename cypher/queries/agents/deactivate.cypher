// Deactivates an agent and revokes every key it has, for good (idempotent: deactivating again changes
// nothing, and returns the hashes again so that the caller can signal the revocation again).
// Params: $workspaceId, $agentId, $now. Columns: keyHashes (every key of the agent), wasActive (false: it was
// deactivated already). No row: no such agent.
MATCH (a:Agent {id: $agentId, workspaceId: $workspaceId})
WITH a, a.status = 'active' AS wasActive
SET a.deactivatedAt = CASE WHEN a.status = 'active' THEN $now ELSE a.deactivatedAt END,
    a.status = 'deactivated'
WITH a, wasActive
CALL (a) {
  OPTIONAL MATCH (a)-[:HAS_KEY]->(k:ApiKey)
  SET k.revokedAt = coalesce(k.revokedAt, $now)
  RETURN collect(k.hash) AS keyHashes
}
RETURN keyHashes, wasActive
