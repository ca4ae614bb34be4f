// Changes a context node's fields. Params: $workspaceId, $nodeId, $changes (map of the fields to set; a null
// value removes the property), $now (the new updatedAt). Columns: id (no row when the node is not in the workspace).
MATCH (n:ContextNode {id: $nodeId, workspaceId: $workspaceId})
SET n += $changes, n.updatedAt = $now
RETURN n.id AS id
