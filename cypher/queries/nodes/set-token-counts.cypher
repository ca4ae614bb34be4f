// Stores the token counts of nodes (the start-up backfill). Params: $rows, a list of {workspaceId, id,
// tokenCount, descriptionTokenCount, agentSummaryTokenCount}. Columns: none.
UNWIND $rows AS row
MATCH (n:ContextNode {id: row.id, workspaceId: row.workspaceId})
SET n.tokenCount = row.tokenCount,
    n.descriptionTokenCount = row.descriptionTokenCount,
    n.agentSummaryTokenCount = row.agentSummaryTokenCount
