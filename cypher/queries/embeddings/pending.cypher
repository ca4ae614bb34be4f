// Live context nodes whose passages are not embedded from their current text by $model: never embedded, changed
// since (updatedAt moved), or embedded by another model. Oldest change first, so that a long backfill makes
// steady progress and a node changed now waits behind at most the batches already running.
// Params: $model, $limit (embeddings/pending-in-workspace.cypher: one workspace's).
// Columns: id, workspaceId, updatedAt, title, aliases, description, content. A node whose vector came from the
// client (embeddedModel 'client') waits only when its text changed.
MATCH (n:ContextNode)
WHERE n.status = 'live'
  AND (n.embeddedVersion IS NULL OR n.embeddedVersion <> n.updatedAt
       OR (n.embeddedModel <> $model AND n.embeddedModel <> 'client'))
WITH n ORDER BY n.updatedAt ASC, n.id ASC LIMIT toInteger($limit)
RETURN n.id AS id, n.workspaceId AS workspaceId, n.updatedAt AS updatedAt, n.title AS title, n.aliases AS aliases,
       n.description AS description, n.content AS content
