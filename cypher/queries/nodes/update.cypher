// Changes context nodes' fields (one from a PATCH, a batch from an import). Params: $workspaceId, $now (the new
// updatedAt), $updates: list of {nodeId, changes} (changes: map of the fields to set; a null value removes the
// property). Columns: id, one row per node found in the workspace.
UNWIND $updates AS u
MATCH (n:ContextNode {id: u.nodeId, workspaceId: $workspaceId})
SET n += u.changes, n.updatedAt = $now
RETURN n.id AS id
