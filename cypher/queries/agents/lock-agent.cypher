// First statement of a key rotation: writing the agent node takes its write lock, so a rotation runs after any
// concurrent rotation, revocation or deactivation of the same agent has committed, and reads what it left.
// Params: $workspaceId, $agentId, $now. Columns: status. No row: no such agent in this workspace.
MATCH (a:Agent {id: $agentId, workspaceId: $workspaceId})
SET a.keysChangedAt = $now
RETURN a.status AS status
