// Undoes the last of a failed workspace import: the workspace's wikilink names that nothing names or links to any
// more (its nodes are deleted), at most $limit at a time. Params: $workspaceId, $limit. Columns: deleted.
MATCH (k:WikiName {workspaceId: $workspaceId})
WHERE NOT EXISTS { (k)--() }
WITH k LIMIT toInteger($limit)
DELETE k
RETURN count(*) AS deleted
