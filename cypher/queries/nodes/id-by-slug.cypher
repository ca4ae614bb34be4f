// The id of the workspace's context node with this slug (MCP tools take a node by id or slug).
// Params: $workspaceId, $slug. Columns: id. No row when no node of the workspace has the slug.
MATCH (n:ContextNode {workspaceId: $workspaceId, slug: $slug})
RETURN n.id AS id
