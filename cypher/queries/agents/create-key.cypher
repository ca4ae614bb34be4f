// Adds a key to an active agent. Params: $workspaceId, $agentId, $id, $hash, $prefix, $label (or null), $now.
// Columns: key {id, label, prefix, createdAt} (null when the agent is deactivated), status.
// No row: no such agent in this workspace.
MATCH (a:Agent {id: $agentId, workspaceId: $workspaceId})
OPTIONAL CALL (a) {
  WITH a
  WHERE a.status = 'active'
  CREATE (a)-[:HAS_KEY]->(k:ApiKey {id: $id, kind: 'agent', workspaceId: a.workspaceId, hash: $hash,
                                    prefix: $prefix, label: $label, createdAt: $now})
  RETURN k {.id, .label, .prefix, .createdAt} AS key
}
RETURN key, a.status AS status
