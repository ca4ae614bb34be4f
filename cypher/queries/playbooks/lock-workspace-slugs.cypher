// First statement of a playbook creation: writes the workspace node so that concurrent creations in one
// workspace are serialised, then lists the slugs that could collide with $slug (itself and $slug-N), so the
// caller can pick the first free auto slug without racing. Params: $workspaceId, $slug, $now.
// Columns: taken (list of slugs). No row when the workspace does not exist.
MATCH (w:Workspace {id: $workspaceId})
SET w.playbooksChangedAt = $now
WITH w
CALL (w) {
  MATCH (o:Playbook {workspaceId: w.id})
  WHERE o.slug = $slug OR o.slug STARTS WITH $slug + '-'
  RETURN collect(o.slug) AS taken
}
RETURN taken
