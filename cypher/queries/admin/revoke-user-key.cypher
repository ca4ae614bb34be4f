// Revokes one key of a user (idempotent). Params: $userId, $keyId, $now.
// Columns: hash, workspaceIds (the workspaces the user is a member of: where the key could be cached).
// No row: no such key. Not scoped by workspace: user keys belong to a user, not to one workspace.
MATCH (u:User {id: $userId})-[:HAS_KEY]->(k:ApiKey {id: $keyId})
SET k.revokedAt = coalesce(k.revokedAt, $now)
RETURN k.hash AS hash, COLLECT { MATCH (u)-[:MEMBER_OF]->(w:Workspace) RETURN w.id } AS workspaceIds
