// One page of a full-text search over the workspace's context nodes (index context_node_text: title, aliasText,
// description, content, agentSummary). The index is updated just after each commit, so the search first waits
// for the updates of every transaction committed before it: a committed write is found.
// Params: $query (a Lucene query built from the user's words by wordsQuery, src/nodes/search-query.ts: every word
// quoted, so special characters are text; its boosts make the score the relevance order),
// $workspaceId, $nodeType (or null), $tag (or null: a tag the node must have), $id (or null: the one node listed), $status ('live'|'archived'|'all'),
// $sort ('relevance'|'updated_at'|'created_at'|'title'|'importance'), $order ('asc'|'desc'), $skip, $limit.
// Columns: total, nodes (as nodes/list). Ties are broken by id in the direction of $order.
CALL db.index.fulltext.awaitEventuallyConsistentIndexRefresh()
CALL db.index.fulltext.queryNodes('context_node_text', $query) YIELD node AS n, score
WITH n, score
WHERE n.workspaceId = $workspaceId
  AND ($nodeType IS NULL OR n.nodeType = $nodeType) AND ($id IS NULL OR n.id = $id) AND ($status = 'all' OR n.status = $status)
  AND ($tag IS NULL OR any(t IN coalesce(n.tags, []) WHERE toLower(t) = $tag))
WITH n, CASE $sort
          WHEN 'relevance' THEN score
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
