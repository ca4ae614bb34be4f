// Ends a grant from the console: its tokens are refused from the next request on. Only the agent's sponsor or an
// owner may. Params: $workspaceId, $agentId, $grantId, $userId, $isOwner, $now.
// Columns: grant {id, clientId, clientName} (null: no such grant of this agent), allowed, wasActive.
// No row: no such agent.
MATCH (a:Agent {id: $agentId, workspaceId: $workspaceId})
WITH a, (a.sponsorUserId = $userId OR $isOwner) AS allowed
OPTIONAL MATCH (g:OAuthGrant {id: $grantId, workspaceId: $workspaceId})-[:ACTS_AS]->(a)
WITH a, allowed, g, g.revokedAt IS NULL AS wasActive
CALL (g, allowed) {
  WITH g
  WHERE allowed AND g IS NOT NULL
  SET g.revokedAt = coalesce(g.revokedAt, $now)
}
RETURN g {.id, .clientId, .clientName} AS grant, allowed, wasActive
