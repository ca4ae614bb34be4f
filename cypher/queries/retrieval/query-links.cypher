// One step of a context query's walk along links: the live nodes of the workspace linked from (out) or to (in)
// the frontier's nodes by a requires, references, relates-to or index-entry link, at most $perNode per frontier
// node (the most important first), so that a hub cannot flood the answer. With $requiresOnly, only requires links
// out are followed (the closure past the walk's depth: what a node requires always comes with it).
// Params: $workspaceId, $frontier (node ids), $requiresOnly, $perNode.
// Columns: fromId, toId, type (relationship type), out (boolean: the link goes from fromId to toId).
UNWIND $frontier AS fromId
MATCH (m:ContextNode {id: fromId})
WHERE m.workspaceId = $workspaceId
CALL (m) {
  MATCH (m)-[r:REQUIRES|REFERENCES|RELATES_TO|INDEX_ENTRY]-(n:ContextNode)
  WHERE n.workspaceId = $workspaceId AND n.status = 'live' AND n <> m
    AND (NOT $requiresOnly OR (r:REQUIRES AND startNode(r) = m))
    AND (startNode(r) = m OR NOT coalesce(n.edgeCaseOnly, false))
  WITH n, r, startNode(r) = m AS out
  ORDER BY CASE type(r) WHEN 'REQUIRES' THEN 0 ELSE 1 END, out DESC, n.importance DESC, n.id ASC
  LIMIT toInteger($perNode)
  RETURN n.id AS toId, type(r) AS type, out
}
RETURN m.id AS fromId, toId, type, out
