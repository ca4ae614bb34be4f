// One workspace. Params: $workspaceId. Columns: workspace {id, name, plan, parentWorkspaceId, monthlyRetrievalLimit, createdAt}.
MATCH (w:Workspace {id: $workspaceId})
RETURN w {.id, .name, .plan, .parentWorkspaceId, .monthlyRetrievalLimit, .createdAt} AS workspace
