// Creates a workspace owned by an existing user, optionally under a parent workspace.
// Params: $id, $name, $plan, $ownerUserId, $parentWorkspaceId (or null), $now.
// Columns: workspace, ownerFound, parentFound. The workspace is created only when both references hold.
OPTIONAL MATCH (owner:User {id: $ownerUserId})
OPTIONAL MATCH (parent:Workspace {id: $parentWorkspaceId})
OPTIONAL CALL (owner, parent) {
  WITH owner, parent
  WHERE owner IS NOT NULL AND ($parentWorkspaceId IS NULL OR parent IS NOT NULL)
  CREATE (w:Workspace {id: $id, name: $name, plan: $plan, parentWorkspaceId: $parentWorkspaceId, createdAt: $now})
  CREATE (owner)-[:MEMBER_OF {role: 'owner', joinedAt: $now}]->(w)
  FOREACH (p IN CASE WHEN parent IS NULL THEN [] ELSE [parent] END | CREATE (w)-[:CHILD_OF]->(p))
  RETURN w
}
RETURN w {.id, .name, .plan, .parentWorkspaceId, .monthlyRetrievalLimit, .createdAt} AS workspace,
       owner IS NOT NULL AS ownerFound,
       parent IS NOT NULL OR $parentWorkspaceId IS NULL AS parentFound
