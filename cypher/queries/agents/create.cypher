// Registers an agent in a workspace, sponsored by the (member) user who creates it.
// Params: $workspaceId, $id, $name, $description (or null), $role, $sponsorUserId, $now.
// Columns: agent. No row: the workspace or the sponsor's membership is gone.
MATCH (s:User {id: $sponsorUserId})-[:MEMBER_OF]->(w:Workspace {id: $workspaceId})
CREATE (a:Agent {id: $id, workspaceId: w.id, name: $name, description: $description, role: $role,
                 sponsorUserId: s.id, status: 'active', createdAt: $now})
CREATE (a)-[:BELONGS_TO]->(w)
CREATE (s)-[:SPONSORS]->(a)
RETURN a {.id, .name, .description, .role, .sponsorUserId, .workspaceId, .status, .createdAt, .deactivatedAt} AS agent
