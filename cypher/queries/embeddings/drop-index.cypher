// Spans workspaces: the vector index is one for all workspaces.
// Drops the vector index of passages, before it is made again for vectors of another length.
DROP INDEX chunk_embedding IF EXISTS
