// How far the embeddings of a workspace's live nodes are (or of every workspace's, with $workspaceId null).
// Params: $workspaceId, $model. Columns: total, embedded (from their current text, by $model or by the client).
MATCH (n:ContextNode)
WHERE ($workspaceId IS NULL OR n.workspaceId = $workspaceId) AND n.status = 'live'
RETURN count(n) AS total,
       count(CASE WHEN n.embeddedVersion = n.updatedAt AND n.embeddedModel IN [$model, 'client'] THEN 1 END) AS embedded
