// Records a person's approval: the client acts as this active agent of the workspace. Only the agent's sponsor or
// an owner may approve. Params: $workspaceId, $agentId, $userId, $grant {id, clientId, clientName, createdAt}.
// Columns: agent {id, name, role, sponsorUserId}, allowed (false: the person may not approve for this agent, and
// nothing was written). No row: no such active agent, or the person is not a member.
MATCH (a:Agent {id: $agentId, workspaceId: $workspaceId, status: 'active'})
MATCH (:User {id: $userId})-[m:MEMBER_OF]->(w:Workspace {id: $workspaceId})
WITH a, m, w, (a.sponsorUserId = $userId OR m.role = 'owner') AS allowed
CALL (a, w, allowed) {
  WITH a, w
  WHERE allowed
  CREATE (g:OAuthGrant)-[:ACTS_AS]->(a)
  SET g = $grant, g.workspaceId = w.id, g.agentId = a.id, g.approvedByUserId = $userId
  RETURN count(g) AS created
}
RETURN a {.id, .name, .role, .sponsorUserId} AS agent, allowed
