// Spans workspaces: the operator's view counts every workspace.
// How far the embeddings of every workspace's live nodes are (the operator's view).
// Params: $model. Columns: total, embedded (from their current text, by $model or by the client).
MATCH (n:ContextNode)
WHERE n.status = 'live'
RETURN count(n) AS total,
       count(CASE WHEN n.embeddedVersion = n.updatedAt AND n.embeddedModel IN [$model, 'client'] THEN 1 END) AS embedded
