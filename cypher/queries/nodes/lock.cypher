// Write-locks a context node until the transaction ends, the first statement of an update: two updates of one node
// take turns, so each reads the node as the other left it (its audit event's `before` is what it changed).
// Params: $workspaceId, $nodeId. Columns: id (no row when no such node is in the workspace).
MATCH (n:ContextNode {id: $nodeId, workspaceId: $workspaceId})
SET n._LOCK_ = true
REMOVE n._LOCK_
RETURN n.id AS id
