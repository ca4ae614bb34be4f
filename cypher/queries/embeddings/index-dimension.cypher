// Spans workspaces: the vector index is one for all workspaces.
// The dimension of the vector index of passages (chunk_embedding), if it exists: the embedder recreates the index
// when the provider's vectors have another length. Columns: dimension (integer).
SHOW INDEXES YIELD name, type, options
WHERE name = 'chunk_embedding'
RETURN toInteger(options.indexConfig.`vector.dimensions`) AS dimension
