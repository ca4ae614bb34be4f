// Replaces the passages of nodes with the ones just embedded, for each node still at the version that was read
// (a node changed meanwhile is left pending, and embedded again from its new text). Marks the node embedded
// by $model at that version.
// Params: $workspaceId, $model ('client' for a vector the client sent), $nodes: [{id, updatedAt, chunks: [{section, text, embedding}]}].
// Columns: id of every node stored.
UNWIND $nodes AS item
MATCH (n:ContextNode {id: item.id})
WHERE n.workspaceId = $workspaceId AND n.updatedAt = item.updatedAt
CALL (n) {
  OPTIONAL MATCH (n)-[:HAS_CHUNK]->(old:Chunk)
  DETACH DELETE old
}
CALL (n, item) {
  UNWIND range(0, size(item.chunks) - 1) AS i
  WITH n, i, item.chunks[i] AS c
  CREATE (n)-[:HAS_CHUNK]->(:Chunk {workspaceId: $workspaceId, nodeId: n.id, ordinal: i, section: c.section, embedding: c.embedding})
}
SET n.embeddedVersion = item.updatedAt, n.embeddedModel = $model
RETURN n.id AS id
