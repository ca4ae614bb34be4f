// Rotates one key of an active agent (run after lock-agent.cypher in the same transaction): a new key, and the
// old one kept working until $expiresAt (when the grace period is 0, the caller then revokes it with
// revoke-key.cypher in the same transaction). Refused, changing nothing, when the old key is revoked or already
// expired ('not_active') or already has an expiry ('already_rotated'). The new key takes over the old key's label
// when $label is null: it does the same job for the same agent.
// Params: $workspaceId, $agentId, $keyId, $id, $hash, $prefix, $label (or null: the old key's), $now, $expiresAt.
// Columns: refusal (null, 'not_active' or 'already_rotated'), key {id, label, prefix, createdAt} (null when
// refused), previous {id, prefix, hash, expiresAt}. No row: the agent has no such key in this workspace.
MATCH (a:Agent {id: $agentId, workspaceId: $workspaceId})-[:HAS_KEY]->(old:ApiKey {id: $keyId})
WITH a, old,
     CASE WHEN old.revokedAt IS NOT NULL OR old.expiresAt <= $now THEN 'not_active'
          WHEN old.expiresAt IS NOT NULL THEN 'already_rotated' END AS refusal
OPTIONAL CALL (a, old, refusal) {
  WITH a, old, refusal
  WHERE refusal IS NULL
  CREATE (a)-[:HAS_KEY]->(k:ApiKey {id: $id, kind: 'agent', workspaceId: a.workspaceId, hash: $hash,
                                    prefix: $prefix, label: coalesce($label, old.label), createdAt: $now})
  SET old.expiresAt = $expiresAt
  RETURN k {.id, .label, .prefix, .createdAt} AS key
}
RETURN refusal, key, old {.id, .prefix, .hash, .expiresAt} AS previous
