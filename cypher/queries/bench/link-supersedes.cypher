// Parameters: $workspaceId, $rows: list of {id ('lnk_…'), from (source node id), to (target node id), createdAt}.
// Creates one batch of 'supersedes' links between context nodes of the workspace: (:ContextNode)-[:SUPERSEDES]->(:ContextNode).
UNWIND $rows AS row
MATCH (a:ContextNode {id: row.from})
MATCH (b:ContextNode {id: row.to})
WHERE a.workspaceId = $workspaceId AND b.workspaceId = $workspaceId
CREATE (a)-[r:SUPERSEDES {id: row.id, workspaceId: $workspaceId, origin: 'manual', createdAt: row.createdAt}]->(b)
RETURN count(r) AS created
