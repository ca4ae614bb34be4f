// One step of a context query's walk along links: the live nodes of the workspace linked from (out) or to (in)
// the frontier's nodes by a requires, references, relates-to or index-entry link, at most $perNode per frontier
// node (requires first, then the most important), so that a hub cannot flood the answer. An edge-case-only node
// is reached only by a link of its own pointing at it from the frontier.
// Params: $workspaceId, $frontier (node ids), $perNode.
// Columns: fromId, toId, type (relationship type), out (boolean: the link goes from fromId to toId).
UNWIND $frontier AS fromId
MATCH (m:ContextNode {id: fromId})
WHERE m.workspaceId = $workspaceId
CALL (m) {
  MATCH (m)-[r:REQUIRES|REFERENCES|RELATES_TO|INDEX_ENTRY]-(n:ContextNode)
  WHERE n.workspaceId = $workspaceId AND n.status = 'live' AND n <> m
    AND (startNode(r) = m OR NOT coalesce(n.edgeCaseOnly, false))
  WITH n, r, startNode(r) = m AS out
  ORDER BY CASE type(r) WHEN 'REQUIRES' THEN 0 ELSE 1 END, out DESC, n.importance DESC, n.id ASC
  LIMIT toInteger($perNode)
  RETURN n.id AS toId, type(r) AS type, out
}
RETURN m.id AS fromId, toId, type, out
