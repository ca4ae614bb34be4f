// The id of the workspace's playbook with this slug (MCP tools take a playbook by id or slug).
// Params: $workspaceId, $slug. Columns: id. No row when no playbook of the workspace has the slug.
MATCH (p:Playbook {workspaceId: $workspaceId, slug: $slug})
RETURN p.id AS id
