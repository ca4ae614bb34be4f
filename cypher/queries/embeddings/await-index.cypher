// Spans workspaces: the vector index is one for all workspaces.
// Waits until the vector index is online (after it is made, and while it is filled from the stored passages).
CALL db.awaitIndex('chunk_embedding', 300)
