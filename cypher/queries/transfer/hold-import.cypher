// First statement of each batch of a workspace import: takes the workspace's write lock (as a bulk node import's
// batches do, so that they and the batch take turns) and checks that the import still holds the
// workspace, renewing its mark. Params: $workspaceId, $importId, $now. Columns: id (no row when the mark is gone).
MATCH (w:Workspace {id: $workspaceId})
WHERE w.importId = $importId
SET w.graphChangedAt = $now, w.playbooksChangedAt = $now, w.importActiveAt = $now
RETURN w.id AS id
