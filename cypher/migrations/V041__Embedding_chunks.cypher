// Embeddings of context nodes (docs/retrieval.md): each live node is embedded as one or more passages, (:Chunk)
// nodes linked by HAS_CHUNK, carrying the workspace and node ids a query filters by. The vector index over their
// `embedding` is made by the embedder at start, once the provider's dimension is known (embeddings/create-index.cypher).
CREATE INDEX chunk_workspace IF NOT EXISTS FOR (c:Chunk) ON (c.workspaceId);
CREATE INDEX chunk_node IF NOT EXISTS FOR (c:Chunk) ON (c.nodeId);
CALL db.awaitIndexes(300);
