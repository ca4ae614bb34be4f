// First statement of a playbook creation (and again for the suffixed slug it chooses): write-locks the workspace's
// claim on $slug, a (:PlaybookSlug {workspaceId, slug}) created if missing, until the transaction ends, so that
// creations of one slug take turns and the second sees the first's playbook, while creations of other slugs go on
// side by side; then lists the slugs that could collide with $slug (itself and $slug-N), so the caller can pick the
// first free one. Params: $workspaceId, $slug. Columns: taken (list of slugs). No row when the workspace does not
// exist.
MATCH (w:Workspace {id: $workspaceId})
MERGE (c:PlaybookSlug {workspaceId: $workspaceId, slug: $slug})
SET c._LOCK_ = true
REMOVE c._LOCK_
RETURN COLLECT {
  MATCH (o:Playbook {workspaceId: $workspaceId})
  WHERE o.slug = $slug OR o.slug STARTS WITH $slug + '-'
  RETURN o.slug
} AS taken
