// Makes a deactivated agent active again. Its old keys stay revoked: it starts with none. Refused when
// the sponsor is no longer a member of the workspace (set another sponsor first).
// Params: $workspaceId, $agentId. Columns: agent, sponsorIsMember, wasActive (nothing to do). No row: no such agent
// in this workspace.
MATCH (a:Agent {id: $agentId, workspaceId: $workspaceId})
WITH a, a.status = 'active' AS wasActive, EXISTS { (:User {id: a.sponsorUserId})-[:MEMBER_OF]->(:Workspace {id: $workspaceId}) } AS sponsorIsMember
CALL (a, sponsorIsMember) {
  WITH a, sponsorIsMember
  WHERE sponsorIsMember AND a.status <> 'active'
  SET a.status = 'active', a.deactivatedAt = null
}
RETURN a {.id, .name, .description, .role, .sponsorUserId, .workspaceId, .status, .createdAt, .deactivatedAt} AS agent,
       sponsorIsMember, wasActive
