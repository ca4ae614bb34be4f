// Deletes an annotation when the principal may see it and may delete it (its author, or an editor and above).
// An agent_local annotation of someone else is invisible to the principal, so it is "not found", never "forbidden".
// Params: $workspaceId, $annotationId, $principalId, $mayDeleteOthers (the caller is an editor or owner).
// Columns: found (visible to the principal), deleted.
OPTIONAL MATCH (a:Annotation {id: $annotationId, workspaceId: $workspaceId})
WHERE a.scopeType = 'workspace_overlay' OR a.authorId = $principalId
WITH a, a IS NOT NULL AS found, a IS NOT NULL AND (a.authorId = $principalId OR $mayDeleteOthers) AS allowed
CALL (a, allowed) {
  WITH a, allowed
  WHERE allowed
  DETACH DELETE a
}
RETURN found, allowed AS deleted
