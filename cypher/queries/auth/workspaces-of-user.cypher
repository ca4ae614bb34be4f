// The workspaces a user is a member of, with the user's role there, oldest membership first (ties by id).
// Params: $userId. Columns: workspace {id, name, plan, parentWorkspaceId, createdAt}, role.
// Global like the other auth statements: it answers which workspaces a user key reaches (GET /api/v1/workspaces).
MATCH (:User {id: $userId})-[m:MEMBER_OF]->(w:Workspace)
RETURN w {.id, .name, .plan, .parentWorkspaceId, .createdAt} AS workspace, m.role AS role
ORDER BY m.joinedAt, w.id
