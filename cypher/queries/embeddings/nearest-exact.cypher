// The passages of a workspace nearest to $vector (cosine), every one of them compared: exact, and for a workspace
// of few passages beside large ones cheaper than the shared index, whose nearest passages may all be others'.
// Only live nodes; each node once, by its best passage.
// Params: $workspaceId, $vector, $limit. Columns: id (node), score (0..1, 1 = same direction), section.
MATCH (c:Chunk {workspaceId: $workspaceId})
WITH c, vector.similarity.cosine(c.embedding, $vector) AS score
WHERE score IS NOT NULL
MATCH (n:ContextNode {id: c.nodeId})
WHERE n.workspaceId = $workspaceId AND n.status = 'live'
WITH n, c, score ORDER BY score DESC, c.ordinal ASC
WITH n, head(collect({score: score, section: c.section})) AS best
RETURN n.id AS id, best.score AS score, best.section AS section
ORDER BY score DESC, id ASC LIMIT toInteger($limit)
