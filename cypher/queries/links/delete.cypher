// Deletes one manual link going out of a context node or a playbook. Params: $workspaceId,
// $sourceType ('context_node'|'playbook'), $sourceId, $linkId, $linkRelTypes (src/nodes/link-types.ts).
// Columns: sourceFound, linkFound, origin ('manual'|'wikilink'|null), deleted. A link that comes from a
// wikilink is not deleted here (the source's content owns it): deleted is false then.
OPTIONAL CALL () {
  MATCH (s:ContextNode {id: $sourceId})
  WHERE $sourceType = 'context_node' AND s.workspaceId = $workspaceId
  RETURN s
  UNION
  MATCH (s:Playbook {id: $sourceId})
  WHERE $sourceType = 'playbook' AND s.workspaceId = $workspaceId
  RETURN s
}
OPTIONAL MATCH (s)-[r]->(:ContextNode)
WHERE type(r) IN $linkRelTypes AND r.id = $linkId
WITH s, r, r IS NOT NULL AS linkFound, r.origin AS origin
WITH s, r, linkFound, origin, linkFound AND origin <> 'wikilink' AS deleted
CALL (r, deleted) {
  WITH r, deleted
  WHERE deleted
  DELETE r
}
RETURN s IS NOT NULL AS sourceFound, linkFound, origin, deleted
