// What the consent page shows a signed-in person: the workspace, their role in it, and the active agents they may
// let a client act as (those they sponsor; an owner may pick any). Params: $workspaceId, $userId.
// Columns: workspace {id, name}, role, agents [{id, name, role, sponsorUserId, active}]. No row: not a member.
MATCH (u:User {id: $userId})-[m:MEMBER_OF]->(w:Workspace {id: $workspaceId})
CALL (w, u, m) {
  OPTIONAL MATCH (a:Agent {workspaceId: w.id, status: 'active'})
  WHERE a.sponsorUserId = u.id OR m.role = 'owner'
  WITH a ORDER BY a.name, a.id
  RETURN collect(a {.id, .name, .role, .sponsorUserId, active: true}) AS agents
}
RETURN w {.id, .name} AS workspace, m.role AS role, agents
