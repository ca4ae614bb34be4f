// The words side of a context query (POST {ws}/context/query): the workspace's live nodes that match the
// question's words, best BM25 score first (the Lucene query of src/nodes/search-query.ts: any word, all words
// and the phrase boosted). The index is updated just after each commit: the search first waits for it.
// Params: $workspaceId, $query, $limit. Columns: id, score.
CALL db.index.fulltext.awaitEventuallyConsistentIndexRefresh()
CALL db.index.fulltext.queryNodes('context_node_text', $query) YIELD node AS n, score
WITH n, score
WHERE n.workspaceId = $workspaceId AND n.status = 'live'
RETURN n.id AS id, score
ORDER BY score DESC, id ASC LIMIT toInteger($limit)
