// The pending nodes of one workspace written to lately (see embeddings/pending.cypher), newest change first: the
// nodes just written are what the round is for, and they are found first in the (workspaceId, updatedAt) index's
// order without reading the workspace's other nodes (oldest first read every embedded node before them: 45,000
// db hits a round in a workspace of 10,000 nodes, against 300). The order names the index's two keys so that the
// planner reads the index backwards instead of sorting every node of the workspace.
// Params: $workspaceId, $model, $limit. Columns: as embeddings/pending.cypher.
MATCH (n:ContextNode)
WHERE n.workspaceId = $workspaceId AND n.updatedAt IS NOT NULL AND n.status = 'live'
  AND (n.embeddedVersion IS NULL OR n.embeddedVersion <> n.updatedAt
       OR (n.embeddedModel <> $model AND n.embeddedModel <> 'client'))
WITH n ORDER BY n.workspaceId DESC, n.updatedAt DESC LIMIT toInteger($limit)
RETURN n.id AS id, n.workspaceId AS workspaceId, n.updatedAt AS updatedAt, n.title AS title, n.aliases AS aliases,
       n.description AS description, n.content AS content
