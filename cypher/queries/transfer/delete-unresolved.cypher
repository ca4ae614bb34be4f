// Undoes the last of a failed workspace import: the workspace's unresolved wikilink targets that no node waits
// for any more (its nodes are deleted), at most $limit at a time. Params: $workspaceId, $limit. Columns: deleted.
MATCH (u:UnresolvedLink {workspaceId: $workspaceId})
WHERE NOT EXISTS { ()-[:WIKILINK_TO]->(u) }
WITH u LIMIT toInteger($limit)
DELETE u
RETURN count(*) AS deleted
