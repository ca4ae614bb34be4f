// Changes a member's role, refusing to demote the last owner. Writing the workspace first serialises
// concurrent member changes of one workspace, so two demotions cannot both pass the owner count.
// Params: $workspaceId, $userId, $role, $now. Columns: member (null if refused), found, lastOwner.
MATCH (w:Workspace {id: $workspaceId})
SET w.membersChangedAt = $now
WITH w
OPTIONAL MATCH (u:User {id: $userId})-[m:MEMBER_OF]->(w)
WITH w, u, m, m.role AS previousRole, COUNT { (:User)-[o:MEMBER_OF {role: 'owner'}]->(w) } AS owners
WITH w, u, m, previousRole, m IS NOT NULL AND m.role = 'owner' AND $role <> 'owner' AND owners = 1 AS lastOwner
CALL (m, lastOwner) {
  WITH m, lastOwner
  WHERE m IS NOT NULL AND NOT lastOwner
  SET m.role = $role
}
RETURN CASE WHEN m IS NULL OR lastOwner THEN null
       ELSE {userId: u.id, email: u.email, name: u.name, role: m.role, joinedAt: m.joinedAt} END AS member,
       m IS NOT NULL AS found, lastOwner, previousRole
