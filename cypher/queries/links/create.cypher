// Creates a manual link from a context node or a playbook to a context node of the same workspace.
// Params: $workspaceId, $sourceType ('context_node'|'playbook'), $sourceId, $targetId, $linkId, $now,
// $relType: the relationship type of the link, taken by the service from the fixed map of the API's link types
// (src/nodes/link-types.ts); it travels as a value (a dynamic type, `$(...)`), never spliced into the text.
// Columns: sourceFound, targetFound, duplicate (a link of that type already joins them, whatever its origin),
// created. Nothing is written unless created. The source is write-locked before the duplicate check (as wikilink
// resolution locks it, links/sync-wikilinks.cypher): two writes adding the same link take turns, and the second
// finds the first's.
OPTIONAL CALL () {
  MATCH (s:ContextNode {id: $sourceId})
  WHERE $sourceType = 'context_node' AND s.workspaceId = $workspaceId
  RETURN s
  UNION
  MATCH (s:Playbook {id: $sourceId})
  WHERE $sourceType = 'playbook' AND s.workspaceId = $workspaceId
  RETURN s
}
CALL (s) {
  WITH s
  WHERE s IS NOT NULL
  SET s._LOCK_ = true
  REMOVE s._LOCK_
}
OPTIONAL MATCH (t:ContextNode {id: $targetId, workspaceId: $workspaceId})
WITH s, t, CASE WHEN s IS NULL OR t IS NULL THEN false ELSE EXISTS { (s)-[r]->(t) WHERE type(r) = $relType } END AS duplicate
WITH s, t, duplicate, s IS NOT NULL AND t IS NOT NULL AND s <> t AND NOT duplicate AS created
CALL (s, t, created) {
  WITH s, t, created
  WHERE created
  CREATE (s)-[:$($relType) {id: $linkId, workspaceId: $workspaceId, origin: 'manual', createdAt: $now}]->(t)
}
RETURN s IS NOT NULL AS sourceFound, t IS NOT NULL AS targetFound, duplicate, created
