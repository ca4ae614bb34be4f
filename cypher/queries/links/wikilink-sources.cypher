// The context nodes whose wikilinks may resolve differently now that node $nodeId has appeared or changed its
// slug: those with a wikilink link to it (their [[old-slug]] may no longer match) and those waiting on an
// UnresolvedLink for its current slug. The node itself is left out. Params: $workspaceId, $nodeId.
// Columns: id, content (each source once).
MATCH (n:ContextNode {id: $nodeId, workspaceId: $workspaceId})
CALL (n) {
  MATCH (s:ContextNode)-[:REFERENCES {origin: 'wikilink'}]->(n)
  RETURN s
  UNION
  MATCH (s:ContextNode)-[:WIKILINK_TO]->(:UnresolvedLink {workspaceId: $workspaceId, slug: n.slug})
  RETURN s
}
WITH n, s
WHERE s <> n AND s.workspaceId = $workspaceId
RETURN s.id AS id, s.content AS content
