// Whether a workspace exists: a token can only be bound to the MCP endpoint of one that does.
// Params: $workspaceId. Columns: exists.
RETURN EXISTS { MATCH (:Workspace {id: $workspaceId}) } AS exists
