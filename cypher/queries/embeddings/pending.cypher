// Live context nodes whose passages are not embedded from their current text by $model: never embedded, changed
// since (updatedAt moved), or embedded by another model. Oldest change first, so that a long backfill makes
// steady progress and a node changed now waits behind at most the batches already running.
// Params: $workspaceId (or null: every workspace), $model, $limit.
// Columns: id, workspaceId, updatedAt, title, aliases, description, content, clientVector (boolean: its vector
// came from the client with its text, and stays until the text changes).
MATCH (n:ContextNode)
WHERE ($workspaceId IS NULL OR n.workspaceId = $workspaceId) AND n.status = 'live'
  AND (n.embeddedVersion IS NULL OR n.embeddedVersion <> n.updatedAt
       OR (n.embeddedModel <> $model AND n.embeddedModel <> 'client'))
WITH n ORDER BY n.updatedAt ASC, n.id ASC LIMIT toInteger($limit)
RETURN n.id AS id, n.workspaceId AS workspaceId, n.updatedAt AS updatedAt, n.title AS title, n.aliases AS aliases,
       n.description AS description, n.content AS content
