// The slugs of the workspace's live context nodes that start with what was typed, in slug order: what an MCP client
// completes node://{slug} with. The seek and the order are the (workspaceId, slug) index's (context_node_slug).
// Params: $workspaceId, $prefix (lower-cased, NFC; '' for every slug), $limit. Columns: slug.
MATCH (n:ContextNode)
WHERE n.workspaceId = $workspaceId AND n.slug STARTS WITH $prefix AND n.status = 'live'
RETURN n.slug AS slug
ORDER BY n.slug
LIMIT toInteger($limit)
