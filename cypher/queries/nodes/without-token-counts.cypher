// Context nodes (of every workspace) written before token counts were stored, for the start-up backfill
// (NodeService.backfillTokenCounts: Cypher cannot tokenize, so the counting is done in TypeScript).
// Params: $limit. Columns: workspaceId, id, content, description, agentSummary.
MATCH (n:ContextNode)
WHERE n.tokenCount IS NULL
RETURN n.workspaceId AS workspaceId, n.id AS id, n.content AS content, n.description AS description, n.agentSummary AS agentSummary
LIMIT toInteger($limit)
