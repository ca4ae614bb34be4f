// The clients a person let act as this agent and whose grant still holds, newest first. Params: $workspaceId,
// $agentId. Columns: grants [{id, clientId, clientName, approvedByUserId, createdAt}]. No row: no such agent.
MATCH (a:Agent {id: $agentId, workspaceId: $workspaceId})
CALL (a) {
  OPTIONAL MATCH (g:OAuthGrant {workspaceId: a.workspaceId})-[:ACTS_AS]->(a)
  WHERE g.revokedAt IS NULL
  WITH g ORDER BY g.createdAt DESC, g.id
  RETURN collect(g {.id, .clientId, .clientName, .approvedByUserId, .createdAt}) AS grants
}
RETURN grants
