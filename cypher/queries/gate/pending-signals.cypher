// Every signal still owed to Redis, oldest first. Not scoped by one workspace: a process delivers the owed
// signals of every workspace when Redis comes back. Columns: id, workspaceId, graph, access, keyHashes.
MATCH (s:PendingSignal)
RETURN s.id AS id, s.workspaceId AS workspaceId, s.graph AS graph, s.access AS access, s.keyHashes AS keyHashes
ORDER BY s.createdAt
LIMIT 1000
