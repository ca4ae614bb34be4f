// Context nodes changed after a position of the (updatedAt, id) order: the changes after the last node a page
// returned, so that pages hold at most $limit nodes even when many nodes share a timestamp, and skip none.
// Fetches one row more than asked so the caller knows a page is full.
// Params: $workspaceId, $since (ISO), $afterId (string), $limit (int). Columns: node {id, slug, title, status, updatedAt}.
MATCH (n:ContextNode)
WHERE n.workspaceId = $workspaceId AND n.updatedAt >= $since AND (n.updatedAt > $since OR n.id > $afterId)
RETURN n {.id, .slug, .title, .status, .updatedAt} AS node
ORDER BY n.updatedAt ASC, n.id ASC
LIMIT toInteger($limit) + 1
