// Spans workspaces: a passage whose node is gone has no workspace left to name.
// Passages whose node is gone (deleted by an import's undo or a workspace's deletion), a batch at a time.
// Params: $limit. Columns: removed.
MATCH (c:Chunk) WHERE NOT EXISTS { (c)<-[:HAS_CHUNK]-(:ContextNode) }
WITH c LIMIT toInteger($limit)
DETACH DELETE c
RETURN count(*) AS removed
