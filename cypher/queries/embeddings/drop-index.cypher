// Drops the vector index of passages, before it is made again for vectors of another length.
DROP INDEX chunk_embedding IF EXISTS
