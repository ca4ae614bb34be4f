// Creates a manual link from a context node or a playbook to a context node of the same workspace.
// Params: $workspaceId, $sourceType ('context_node'|'playbook'), $sourceId, $targetId, $linkId, $now,
// $relType: one of REQUIRES, REFERENCES, RELATES_TO, SUPERSEDES, INDEX_ENTRY, taken by the service from a
// fixed map of the API's link types. It is only ever compared, never spliced into the text: each relationship
// type has its own literal CREATE below, at most one of which runs.
// Columns: sourceFound, targetFound, duplicate (a link of that type already joins them, whatever its origin),
// created. Nothing is written unless created.
OPTIONAL CALL () {
  MATCH (s:ContextNode {id: $sourceId})
  WHERE $sourceType = 'context_node' AND s.workspaceId = $workspaceId
  RETURN s
  UNION
  MATCH (s:Playbook {id: $sourceId})
  WHERE $sourceType = 'playbook' AND s.workspaceId = $workspaceId
  RETURN s
}
OPTIONAL MATCH (t:ContextNode {id: $targetId, workspaceId: $workspaceId})
WITH s, t, CASE WHEN s IS NULL OR t IS NULL THEN false ELSE EXISTS { (s)-[r]->(t) WHERE type(r) = $relType } END AS duplicate
WITH s, t, duplicate, s IS NOT NULL AND t IS NOT NULL AND s <> t AND NOT duplicate AS created
FOREACH (_ IN CASE WHEN created AND $relType = 'REQUIRES' THEN [1] ELSE [] END |
  CREATE (s)-[:REQUIRES {id: $linkId, workspaceId: $workspaceId, origin: 'manual', createdAt: $now}]->(t))
FOREACH (_ IN CASE WHEN created AND $relType = 'REFERENCES' THEN [1] ELSE [] END |
  CREATE (s)-[:REFERENCES {id: $linkId, workspaceId: $workspaceId, origin: 'manual', createdAt: $now}]->(t))
FOREACH (_ IN CASE WHEN created AND $relType = 'RELATES_TO' THEN [1] ELSE [] END |
  CREATE (s)-[:RELATES_TO {id: $linkId, workspaceId: $workspaceId, origin: 'manual', createdAt: $now}]->(t))
FOREACH (_ IN CASE WHEN created AND $relType = 'SUPERSEDES' THEN [1] ELSE [] END |
  CREATE (s)-[:SUPERSEDES {id: $linkId, workspaceId: $workspaceId, origin: 'manual', createdAt: $now}]->(t))
FOREACH (_ IN CASE WHEN created AND $relType = 'INDEX_ENTRY' THEN [1] ELSE [] END |
  CREATE (s)-[:INDEX_ENTRY {id: $linkId, workspaceId: $workspaceId, origin: 'manual', createdAt: $now}]->(t))
RETURN s IS NOT NULL AS sourceFound, t IS NOT NULL AS targetFound, duplicate, created
