// The retrieval count persisted for a workspace and month, used to re-seed Redis when its counter is gone.
// Params: $workspaceId, $period ('YYYY-MM'). Columns: used (0 when nothing was persisted).
OPTIONAL MATCH (u:UsagePeriod {workspaceId: $workspaceId, period: $period})
RETURN coalesce(u.used, 0) AS used
