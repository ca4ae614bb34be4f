// The requires closure of a context query's answer, one step: the live nodes of the workspace that the frontier's
// nodes require (requires links out), so that what a node of the answer requires always comes with it.
// Params: $workspaceId, $frontier (node ids). Columns: fromId, toId, type ('REQUIRES'), out (true).
UNWIND $frontier AS fromId
MATCH (m:ContextNode {id: fromId})-[:REQUIRES]->(n:ContextNode)
WHERE m.workspaceId = $workspaceId AND n.workspaceId = $workspaceId AND n.status = 'live' AND n <> m
RETURN m.id AS fromId, n.id AS toId, 'REQUIRES' AS type, true AS out
