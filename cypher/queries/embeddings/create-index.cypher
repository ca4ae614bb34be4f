// Spans workspaces: the vector index is one for all workspaces.
// The vector index of every workspace's passages (:Chunk), cosine similarity, $dimension numbers a vector. One
// index for all workspaces: a query keeps its own workspace's passages (embeddings/nearest-indexed.cypher).
CREATE VECTOR INDEX chunk_embedding IF NOT EXISTS FOR (c:Chunk) ON (c.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: $dimension, `vector.similarity_function`: 'cosine'}}
