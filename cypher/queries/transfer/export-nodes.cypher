// A workspace export's context nodes, archived ones too, oldest first (createdAt, then slug).
// Params: $workspaceId. Columns: node (map of the API's node fields; absent ones null, absent aliases and tags
// empty lists).
MATCH (n:ContextNode {workspaceId: $workspaceId})
WITH n ORDER BY n.createdAt, n.slug
RETURN n {.id, .slug, .title, .description, .content, .nodeType, .agentSummary, .importance, .readFirst,
          .edgeCaseOnly, .status, .createdAt, .updatedAt, .archivedAt, .sourcePath,
          aliases: coalesce(n.aliases, []), tags: coalesce(n.tags, [])} AS node
