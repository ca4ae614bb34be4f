// Parameters: $workspaceId, $rows: list of {id ('lnk_…'), from (source node id), to (target node id),
// relType (a relationship type of src/nodes/link-types.ts), createdAt}.
// Creates one batch of manual links between context nodes of the workspace.
UNWIND $rows AS row
MATCH (a:ContextNode {id: row.from})
MATCH (b:ContextNode {id: row.to})
WHERE a.workspaceId = $workspaceId AND b.workspaceId = $workspaceId
CREATE (a)-[r:$(row.relType) {id: row.id, workspaceId: $workspaceId, origin: 'manual', createdAt: row.createdAt}]->(b)
RETURN count(r) AS created
