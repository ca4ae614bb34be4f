// Last statement of a workspace import, whether it completed or was undone: clears the import's mark, so that
// the workspace is no longer held. Params: $workspaceId, $importId, $now. Columns: id (no row when the mark is
// not this import's).
MATCH (w:Workspace {id: $workspaceId})
WHERE w.importId = $importId
SET w.graphChangedAt = $now, w.playbooksChangedAt = $now
REMOVE w.importId, w.importActiveAt
RETURN w.id AS id
