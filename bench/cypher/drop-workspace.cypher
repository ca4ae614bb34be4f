// Parameters: $workspaceId. Columns: none.
// Deletes a generated workspace, emptied by drop-workspace-part.cypher, with the owner the generator made for it.
MATCH (w:Workspace {id: $workspaceId})
OPTIONAL MATCH (u:User)-[:MEMBER_OF]->(w) WHERE u.email STARTS WITH 'bench-owner+'
DETACH DELETE u, w
