// The id of the workspace's context node that a wikilink with this name resolves to (MCP tools take a node by id
// or by name: its slug, file name, path, title or an alias), chosen as links/sync-wikilinks.cypher chooses.
// Params: $workspaceId, $key (the name lowercased, in NFC). Columns: id. No row when no node has the name.
MATCH (:WikiName {workspaceId: $workspaceId, key: $key})<-[n:NAMED]-(t:ContextNode)
RETURN t.id AS id
ORDER BY n.rank, n.depth, n.length, n.path, t.id
LIMIT 1
