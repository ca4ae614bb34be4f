// Passages of one workspace and of all: which way a query searches them (embeddings/nearest-*.cypher).
// Params: $workspaceId. Columns: mine, all.
CALL () { MATCH (c:Chunk {workspaceId: $workspaceId}) RETURN count(c) AS mine }
CALL () { MATCH (c:Chunk) RETURN count(c) AS all }
RETURN mine, all
