// Changes a playbook's metadata (run after lock.cypher, in its transaction). Params: $workspaceId, $playbookId,
// $changes (map of title, slug, summary, description, functionArea, visibility, tags, ownerId; null removes a
// property), $ownerId (or null: not changing the owner). The owner must be a user who is a member of the workspace.
// Columns: ownerIsMember. Nothing is written when it is false.
MATCH (p:Playbook {id: $playbookId, workspaceId: $workspaceId})
OPTIONAL MATCH (u:User {id: $ownerId})-[:MEMBER_OF]->(:Workspace {id: $workspaceId})
WITH p, $ownerId IS NULL OR u IS NOT NULL AS ownerIsMember
CALL (p, ownerIsMember) {
  WITH p, ownerIsMember
  WHERE ownerIsMember
  SET p += $changes
}
RETURN ownerIsMember
