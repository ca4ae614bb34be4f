// Creates a context node in its workspace. Params: $workspaceId, $node (map of every ContextNode property,
// see docs/graph-model.md; null values are not stored). Columns: id (no row when the workspace does not exist).
MATCH (w:Workspace {id: $workspaceId})
CREATE (n:ContextNode)
SET n = $node, n.workspaceId = $workspaceId
CREATE (n)-[:IN_WORKSPACE]->(w)
RETURN n.id AS id
