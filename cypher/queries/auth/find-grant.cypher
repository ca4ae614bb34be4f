// Who an OAuth access token acts as in the workspace its resource names: the grant's agent, with the lower of its
// own role and its sponsor's current one (as its keys do). Params: $grantId, $workspaceId.
// Columns: agentId, sponsorUserId, role, clientId, clientName. No row once the grant is revoked, the agent
// deactivated, its sponsor gone from the workspace, or the person who approved the grant gone from it.
MATCH (g:OAuthGrant {id: $grantId, workspaceId: $workspaceId})-[:ACTS_AS]->(a:Agent {status: 'active'})
WHERE g.revokedAt IS NULL
MATCH (:User {id: a.sponsorUserId})-[m:MEMBER_OF]->(w:Workspace {id: $workspaceId})
MATCH (:User {id: g.approvedByUserId})-[:MEMBER_OF]->(w)
WITH g, a, m, {viewer: 0, editor: 1, owner: 2} AS rank
RETURN a.id AS agentId,
       a.sponsorUserId AS sponsorUserId,
       CASE WHEN rank[a.role] <= rank[m.role] THEN a.role ELSE m.role END AS role,
       g.clientId AS clientId,
       g.clientName AS clientName
