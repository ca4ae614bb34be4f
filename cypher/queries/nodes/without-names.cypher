// Up to $limit context nodes (any workspace) that have no names yet (written before wikilinks named nodes by
// name, path and alias): the start-up backfill gives them names and wikilinks (src/nodes/service.ts).
// Params: $limit. Columns: workspaceId, id, slug, title, aliases, sourcePath, content.
MATCH (n:ContextNode)
WHERE NOT EXISTS { (n)-[:NAMED]->() }
RETURN n.workspaceId AS workspaceId, n.id AS id, n.slug AS slug, n.title AS title, n.aliases AS aliases,
       n.sourcePath AS sourcePath, n.content AS content
LIMIT toInteger($limit)
