// Parameters: $workspaceId, $rows: list of {id ('lnk_…'), from (playbook id), to (context node id),
// relType (a relationship type of src/nodes/link-types.ts), createdAt}.
// Creates manual links from playbooks to context nodes of the workspace.
UNWIND $rows AS row
MATCH (a:Playbook {id: row.from})
MATCH (b:ContextNode {id: row.to})
WHERE a.workspaceId = $workspaceId AND b.workspaceId = $workspaceId
CREATE (a)-[r:$(row.relType) {id: row.id, workspaceId: $workspaceId, origin: 'manual', createdAt: row.createdAt}]->(b)
RETURN count(r) AS created
