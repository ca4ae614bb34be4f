// One agent of a workspace with the number of its active keys. Params: $workspaceId, $agentId.
// Columns: agent (with keyCount). No row: no such agent in this workspace.
MATCH (a:Agent {id: $agentId, workspaceId: $workspaceId})
RETURN a {.id, .name, .description, .role, .sponsorUserId, .workspaceId, .status, .createdAt, .deactivatedAt,
          keyCount: COUNT { (a)-[:HAS_KEY]->(k:ApiKey) WHERE k.revokedAt IS NULL }} AS agent
