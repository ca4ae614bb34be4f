// Slugs of the workspace's context nodes that equal $base or extend it with a suffix ($base-2, $base-3, …),
// for allocating a free slug, and the ids holding them.
// Params: $workspaceId, $base. Columns: id, slug.
MATCH (n:ContextNode {workspaceId: $workspaceId})
WHERE n.slug = $base OR n.slug STARTS WITH $base + '-'
RETURN n.id AS id, n.slug AS slug
