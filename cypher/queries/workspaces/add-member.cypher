// Adds a user to a workspace. Params: $workspaceId, $userId, $role, $now.
// Columns: member (null when already a member or no such user), userFound. Serialised per workspace like
// the other member changes, so two concurrent adds of one user cannot both succeed.
MATCH (w:Workspace {id: $workspaceId})
SET w.membersChangedAt = $now
WITH w
OPTIONAL MATCH (u:User {id: $userId})
OPTIONAL MATCH (u)-[existing:MEMBER_OF]->(w)
OPTIONAL CALL (u, w, existing) {
  WITH u, w, existing
  WHERE u IS NOT NULL AND existing IS NULL
  CREATE (u)-[m:MEMBER_OF {role: $role, joinedAt: $now}]->(w)
  RETURN {userId: u.id, email: u.email, name: u.name, role: m.role, joinedAt: m.joinedAt} AS member
}
RETURN member, u IS NOT NULL AS userFound
