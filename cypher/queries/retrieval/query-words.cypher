// The words side of a context query (POST {ws}/context/query): the workspace's live nodes that match the
// question's words, best BM25 score first (the Lucene query of src/nodes/search-query.ts: any word, all words
// and the phrase boosted). The index is shared by every workspace and a question of common words matches most of
// it, so it is asked for its $candidates best hits only; `scanned` says how many it gave, and the caller asks
// again without the bound (a $candidates of null) when they held too few of this workspace's nodes. The index is
// updated just after each commit: the search first waits for it.
// Params: $workspaceId, $query, $candidates (or null: every hit), $limit. Columns: id, score, scanned.
CALL db.index.fulltext.awaitEventuallyConsistentIndexRefresh()
CALL db.index.fulltext.queryNodes('context_node_text', $query, {limit: coalesce(toInteger($candidates), 2147483647)}) YIELD node AS n, score
WITH collect({n: n, score: score}) AS hits
UNWIND hits AS hit
WITH hit.n AS n, hit.score AS score, size(hits) AS scanned
WHERE n.workspaceId = $workspaceId AND n.status = 'live'
RETURN n.id AS id, score, scanned
ORDER BY score DESC, id ASC LIMIT toInteger($limit)
