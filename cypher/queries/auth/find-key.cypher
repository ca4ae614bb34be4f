// The active principal behind an API key, found by the key's SHA-256 hash.
// Params: $hash, $now. Columns: keyId, kind ('user'|'agent'), principalId, workspaceId, sponsorUserId, role,
// expiresAt (null, or when a rotated key stops working: whoever caches the answer must not keep it past then).
// No row for an unknown or revoked key, a key whose expiresAt has passed, a key of a deactivated agent, or of an agent whose sponsor is no
// longer a member of the agent's workspace. An agent acts with the lower of its own role and its sponsor's
// current role, so demoting the sponsor also demotes what the sponsor's agents can do.
MATCH (k:ApiKey {hash: $hash})
WHERE k.revokedAt IS NULL AND (k.expiresAt IS NULL OR k.expiresAt > $now)
MATCH (owner)-[:HAS_KEY]->(k)
WHERE owner:User OR (owner:Agent AND owner.status = 'active')
OPTIONAL MATCH (:User {id: owner.sponsorUserId})-[m:MEMBER_OF]->(:Workspace {id: owner.workspaceId})
WITH k, owner, m, {viewer: 0, editor: 1, owner: 2} AS rank
WHERE owner:User OR m IS NOT NULL
RETURN k.id AS keyId,
       k.kind AS kind,
       owner.id AS principalId,
       owner.workspaceId AS workspaceId,
       owner.sponsorUserId AS sponsorUserId,
       CASE WHEN owner:User THEN null
            WHEN rank[owner.role] <= rank[m.role] THEN owner.role
            ELSE m.role END AS role,
       k.expiresAt AS expiresAt
