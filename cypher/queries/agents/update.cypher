// Changes an agent's name, description or sponsor. The new sponsor must be a member of the workspace;
// the SPONSORS relationship moves with sponsorUserId.
// Params: $workspaceId, $agentId, $changes (map with any of name, description), $sponsorUserId (or null: keep).
// Columns: agent (null when refused), sponsorIsMember, before (name, description and sponsor before the change). No row:
// no such agent in this workspace.
MATCH (a:Agent {id: $agentId, workspaceId: $workspaceId})
OPTIONAL MATCH (s:User {id: $sponsorUserId})-[:MEMBER_OF]->(:Workspace {id: $workspaceId})
WITH a, s, $sponsorUserId IS NULL OR s IS NOT NULL AS sponsorIsMember, a {.name, .description, .sponsorUserId} AS before
CALL (a, s, sponsorIsMember) {
  WITH a, s, sponsorIsMember
  WHERE sponsorIsMember
  SET a += $changes
  WITH a, s
  CALL (a, s) {
    WITH a, s
    WHERE s IS NOT NULL AND a.sponsorUserId <> s.id
    OPTIONAL MATCH (:User)-[old:SPONSORS]->(a)
    DELETE old
    WITH DISTINCT a, s
    CREATE (s)-[:SPONSORS]->(a)
    SET a.sponsorUserId = s.id
  }
}
RETURN CASE WHEN sponsorIsMember
            THEN a {.id, .name, .description, .role, .sponsorUserId, .workspaceId, .status, .createdAt, .deactivatedAt}
            END AS agent,
       sponsorIsMember, before
