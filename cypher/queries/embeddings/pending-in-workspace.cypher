// The pending nodes of one workspace (see embeddings/pending.cypher), through the (workspaceId, updatedAt) index:
// a workspace just written to is looked at without reading the others'.
// Params: $workspaceId, $model, $limit. Columns: as embeddings/pending.cypher.
MATCH (n:ContextNode)
WHERE n.workspaceId = $workspaceId AND n.updatedAt IS NOT NULL AND n.status = 'live'
  AND (n.embeddedVersion IS NULL OR n.embeddedVersion <> n.updatedAt
       OR (n.embeddedModel <> $model AND n.embeddedModel <> 'client'))
WITH n ORDER BY n.updatedAt ASC, n.id ASC LIMIT toInteger($limit)
RETURN n.id AS id, n.workspaceId AS workspaceId, n.updatedAt AS updatedAt, n.title AS title, n.aliases AS aliases,
       n.description AS description, n.content AS content
