// The requires closure of a context query's answer, in one statement: every requires link out of a live node of
// the workspace that the frontier's nodes reach by requires links within 7 steps (through live nodes only), with
// the step at which the walk reaches it (1 for a link out of the frontier). The caller admits them step by step,
// as a walk of one statement a step would, without a round trip per step.
// Params: $workspaceId, $frontier (node ids). Columns: fromId, toId, type ('REQUIRES'), out (true), step.
UNWIND $frontier AS fromId
MATCH (m:ContextNode {id: fromId})
WHERE m.workspaceId = $workspaceId AND m.status = 'live'
MATCH p = ANY SHORTEST (m)(()-[:REQUIRES]->(:ContextNode {workspaceId: $workspaceId, status: 'live'})){0,7}(a)
WITH a, min(length(p)) AS before
MATCH (a)-[:REQUIRES]->(n:ContextNode)
WHERE n.workspaceId = $workspaceId AND n.status = 'live' AND n <> a
RETURN a.id AS fromId, n.id AS toId, 'REQUIRES' AS type, true AS out, before + 1 AS step
