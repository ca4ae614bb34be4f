// A workspace import's links, with their ids, origins and creation times. Params: $workspaceId, $links (list of
// {id, sourceType ('context_node'|'playbook'), sourceId, targetId, relType, origin, createdAt}; relType from the
// fixed map of src/nodes/link-types.ts, travelling as a value, never spliced into the text). Columns: none.
UNWIND $links AS link
CALL (link) {
  MATCH (s:ContextNode {id: link.sourceId, workspaceId: $workspaceId}) WHERE link.sourceType = 'context_node' RETURN s
  UNION
  MATCH (s:Playbook {id: link.sourceId, workspaceId: $workspaceId}) WHERE link.sourceType = 'playbook' RETURN s
}
MATCH (t:ContextNode {id: link.targetId, workspaceId: $workspaceId})
CREATE (s)-[:$(link.relType) {id: link.id, workspaceId: $workspaceId, origin: link.origin, createdAt: link.createdAt}]->(t)
