// The passages of a workspace nearest to $vector, from the shared vector index: the $candidates nearest of all
// workspaces, of which this workspace's are kept (the caller asks for enough candidates for its share of the
// index, and falls back to embeddings/nearest-exact.cypher when they hold too few of its own).
// Only live nodes; each node once, by its best passage.
// Params: $workspaceId, $vector, $candidates, $limit. Columns: id, score, section.
CALL db.index.vector.queryNodes('chunk_embedding', toInteger($candidates), $vector) YIELD node AS c, score
WITH c, score WHERE c.workspaceId = $workspaceId
MATCH (n:ContextNode {id: c.nodeId})
WHERE n.workspaceId = $workspaceId AND n.status = 'live'
WITH n, c, score ORDER BY score DESC, c.ordinal ASC
WITH n, head(collect({score: score, section: c.section})) AS best
RETURN n.id AS id, best.score AS score, best.section AS section
ORDER BY score DESC, id ASC LIMIT toInteger($limit)
