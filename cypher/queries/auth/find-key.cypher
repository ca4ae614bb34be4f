// The active principal behind an API key, found by the key's SHA-256 hash.
// Params: $hash. Columns: keyId, kind ('user'|'agent'), principalId, workspaceId, sponsorUserId, role.
// No row for an unknown or revoked key, or a key of a deactivated agent.
MATCH (k:ApiKey {hash: $hash})
WHERE k.revokedAt IS NULL
MATCH (owner)-[:HAS_KEY]->(k)
WHERE (owner:User) OR (owner:Agent AND owner.status = 'active')
RETURN k.id AS keyId,
       k.kind AS kind,
       owner.id AS principalId,
       owner.workspaceId AS workspaceId,
       owner.sponsorUserId AS sponsorUserId,
       owner.role AS role
