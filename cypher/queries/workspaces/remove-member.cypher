// Removes a member and, in the same transaction, deactivates every agent that user sponsors in the
// workspace and revokes their keys. Refuses to remove the last owner (see change-member-role.cypher).
// Params: $workspaceId, $userId, $now. Columns: found, lastOwner, revokedKeyHashes.
MATCH (w:Workspace {id: $workspaceId})
SET w.membersChangedAt = $now
WITH w
OPTIONAL MATCH (u:User {id: $userId})-[m:MEMBER_OF]->(w)
WITH w, u, m, COUNT { (:User)-[o:MEMBER_OF {role: 'owner'}]->(w) } AS owners
WITH w, u, m, m IS NOT NULL AND m.role = 'owner' AND owners = 1 AS lastOwner
OPTIONAL CALL (w, u, m, lastOwner) {
  WITH w, u, m, lastOwner
  WHERE m IS NOT NULL AND NOT lastOwner
  DELETE m
  WITH w, u
  OPTIONAL MATCH (a:Agent {workspaceId: w.id, sponsorUserId: u.id, status: 'active'})
  SET a.status = 'deactivated', a.deactivatedAt = $now
  WITH a
  OPTIONAL MATCH (a)-[:HAS_KEY]->(k:ApiKey) WHERE k.revokedAt IS NULL
  SET k.revokedAt = $now
  RETURN collect(k.hash) AS revokedKeyHashes
}
RETURN m IS NOT NULL AS found, lastOwner, coalesce(revokedKeyHashes, []) AS revokedKeyHashes
