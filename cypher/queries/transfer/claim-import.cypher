// First transaction of a workspace import: takes the workspace's write lock for its graph and its playbook slugs
// (graphChangedAt, playbooksChangedAt, as a bulk node import's batches do), then claims the workspace for this import
// when it is empty and no other import holds it: the import's batches are transactions of their own, and the
// mark (importId, importActiveAt) is what keeps a second import out until the last batch clears it. A mark whose
// import has not written since $staleBefore is taken to be left by a process that stopped, and holds nothing.
// Params: $workspaceId, $importId, $now, $staleBefore. Columns: empty, importing (another import holds it),
// claimed. No row when the workspace does not exist.
MATCH (w:Workspace {id: $workspaceId})
SET w.graphChangedAt = $now, w.playbooksChangedAt = $now
WITH w,
     // Every playbook and node has a slug: with it, each check seeks the (workspaceId, slug) index.
     NOT EXISTS { MATCH (p:Playbook {workspaceId: $workspaceId}) WHERE p.slug IS NOT NULL }
       AND NOT EXISTS { MATCH (n:ContextNode {workspaceId: $workspaceId}) WHERE n.slug IS NOT NULL } AS empty,
     w.importId IS NOT NULL AND w.importActiveAt >= $staleBefore AS importing
WITH w, empty, importing, empty AND NOT importing AS claimed
SET w.importId = CASE WHEN claimed THEN $importId ELSE w.importId END,
    w.importActiveAt = CASE WHEN claimed THEN $now ELSE w.importActiveAt END
RETURN empty, importing, claimed
