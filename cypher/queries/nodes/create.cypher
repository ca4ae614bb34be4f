// Creates context nodes in their workspace (one from a single POST, a batch from an import).
// Params: $workspaceId, $nodes (list of maps of every ContextNode property, see docs/graph-model.md; null values
// are not stored). Columns: id, one row per node (no row when the workspace does not exist).
MATCH (w:Workspace {id: $workspaceId})
UNWIND $nodes AS node
CREATE (n:ContextNode)
SET n = node, n.workspaceId = $workspaceId
CREATE (n)-[:IN_WORKSPACE]->(w)
RETURN n.id AS id
