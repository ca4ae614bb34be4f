// Every agent of a workspace, active and deactivated, oldest first. Params: $workspaceId. Columns: agent.
MATCH (a:Agent {workspaceId: $workspaceId})
RETURN a {.id, .name, .description, .role, .sponsorUserId, .workspaceId, .status, .createdAt, .deactivatedAt} AS agent
ORDER BY a.createdAt, a.id
