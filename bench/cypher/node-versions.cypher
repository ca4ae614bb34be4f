// Parameters: $workspaceId, $after (the last id of the page before; '' for the first), $limit.
// Columns: id, updatedAt (the version the embedder compares with: embeddings/pending.cypher), status, title, content.
// A page of the workspace's context nodes in id order: --retrieval-latency gives each a vector at its current version
// (embeddings/store-chunks.cypher), and takes its vocabulary and the texts of its writes from them.
MATCH (n:ContextNode)
WHERE n.workspaceId = $workspaceId AND n.id > $after
RETURN n.id AS id, n.updatedAt AS updatedAt, n.status AS status, n.title AS title, n.content AS content
ORDER BY n.id ASC
LIMIT toInteger($limit)
