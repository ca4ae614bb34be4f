// A workspace export's context nodes, archived ones too, oldest first (createdAt, then slug).
// Params: $workspaceId. Columns: node (map of the API's node fields; absent ones null).
MATCH (n:ContextNode {workspaceId: $workspaceId})
WITH n ORDER BY n.createdAt, n.slug
RETURN n {.id, .slug, .title, .description, .content, .nodeType, .agentSummary, .importance, .readFirst,
          .edgeCaseOnly, .status, .createdAt, .updatedAt, .archivedAt} AS node
