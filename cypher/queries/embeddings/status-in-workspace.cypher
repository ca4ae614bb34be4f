// How far the embeddings of a workspace's live nodes are, through the (workspaceId, updatedAt) index.
// Params: $workspaceId, $model. Columns: total, embedded (from their current text, by $model or by the client).
MATCH (n:ContextNode)
WHERE n.workspaceId = $workspaceId AND n.updatedAt IS NOT NULL AND n.status = 'live'
RETURN count(n) AS total,
       count(CASE WHEN n.embeddedVersion = n.updatedAt AND n.embeddedModel IN [$model, 'client'] THEN 1 END) AS embedded
