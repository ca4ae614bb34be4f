// One agent of a workspace with the number of its active keys (a rotated key counts until it expires).
// Params: $workspaceId, $agentId, $now.
// Columns: agent (with keyCount). No row: no such agent in this workspace.
MATCH (a:Agent {id: $agentId, workspaceId: $workspaceId})
RETURN a {.id, .name, .description, .role, .sponsorUserId, .workspaceId, .status, .createdAt, .deactivatedAt,
          keyCount: COUNT { (a)-[:HAS_KEY]->(k:ApiKey) WHERE k.revokedAt IS NULL AND (k.expiresAt IS NULL OR k.expiresAt > $now) }} AS agent
