// Every context node whose last change is at exactly one moment (used when more nodes than a page holds
// changed in the same millisecond, so that a page can end after the whole run and lose nothing).
// Params: $workspaceId, $at (ISO). Columns: node {id, slug, title, status, updatedAt}.
MATCH (n:ContextNode)
WHERE n.workspaceId = $workspaceId AND n.updatedAt = $at
RETURN n {.id, .slug, .title, .status, .updatedAt} AS node
ORDER BY n.id ASC
