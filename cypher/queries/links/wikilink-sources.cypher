// The context nodes whose wikilinks may resolve differently now that the nodes $nodeIds have changed their slug:
// those with a wikilink link to one of them (their [[old-slug]] may no longer match) and those waiting on an
// UnresolvedLink for one's current slug; each is then re-synced whole. The nodes $nodeIds themselves are left out.
// (A created node needs only links/resolve-waiting.cypher.)
// Params: $workspaceId, $nodeIds. Columns: id, content (each source once).
UNWIND $nodeIds AS nodeId
MATCH (n:ContextNode {id: nodeId, workspaceId: $workspaceId})
CALL (n) {
  MATCH (s:ContextNode)-[:REFERENCES {origin: 'wikilink'}]->(n)
  RETURN s
  UNION
  MATCH (s:ContextNode)-[:WIKILINK_TO]->(:UnresolvedLink {workspaceId: $workspaceId, slug: n.slug})
  RETURN s
}
WITH DISTINCT s
WHERE NOT s.id IN $nodeIds AND s.workspaceId = $workspaceId
RETURN s.id AS id, s.content AS content
