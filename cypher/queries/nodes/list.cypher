// One page of a workspace's context nodes. Params: $workspaceId, $nodeType (or null), $tag (or null: a tag the node must have), $id (or null: the one node listed), $status ('live'|'archived'|'all'),
// $sort ('updated_at'|'created_at'|'title'|'importance'), $order ('asc'|'desc'), $skip, $limit.
// Columns: total (nodes matching the filters), nodes (the page, list of ContextNode property maps).
// The sort key is chosen by a CASE on a fixed list; title sorts ignoring case; ties are broken by id in
// the same direction, so pages never overlap.
MATCH (n:ContextNode {workspaceId: $workspaceId})
WHERE ($nodeType IS NULL OR n.nodeType = $nodeType) AND ($id IS NULL OR n.id = $id) AND ($status = 'all' OR n.status = $status)
  AND ($tag IS NULL OR any(t IN coalesce(n.tags, []) WHERE toLower(t) = $tag))
WITH n, CASE $sort
          WHEN 'created_at' THEN n.createdAt
          WHEN 'title' THEN toLower(n.title)
          WHEN 'importance' THEN n.importance
          ELSE n.updatedAt
        END AS key
ORDER BY CASE WHEN $order = 'asc' THEN key END ASC, CASE WHEN $order = 'desc' THEN key END DESC,
         CASE WHEN $order = 'asc' THEN n.id END ASC, CASE WHEN $order = 'desc' THEN n.id END DESC
WITH collect(n) AS matched
RETURN size(matched) AS total,
       [n IN matched[$skip..($skip + $limit)] | n {.id, .slug, .title, .description, .content, .nodeType,
         .agentSummary, .importance, .readFirst, .edgeCaseOnly, .status, .createdAt, .updatedAt, .archivedAt, .aliases, .tags, .sourcePath}] AS nodes
