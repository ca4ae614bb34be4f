// Context nodes changed after a moment, oldest change first, archived ones included (with their status) so
// that an agent's cache can evict them. Fetches one row more than asked so the caller knows a page is full.
// Params: $workspaceId, $since (ISO), $limit (int). Columns: node {id, slug, title, status, updatedAt}.
MATCH (n:ContextNode)
WHERE n.workspaceId = $workspaceId AND n.updatedAt > $since
RETURN n {.id, .slug, .title, .status, .updatedAt} AS node
ORDER BY n.updatedAt ASC, n.id ASC
LIMIT toInteger($limit) + 1
