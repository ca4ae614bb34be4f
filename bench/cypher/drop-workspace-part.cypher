// Parameters: $workspaceId. Columns: deleted.
// Deletes up to 5,000 of the workspace's nodes (and their relationships) in one transaction: called until none
// is left, then the workspace itself goes (drop-workspace.cypher). Removes what a failed load left.
MATCH (n {workspaceId: $workspaceId})
WITH n LIMIT 5000
DETACH DELETE n
RETURN count(*) AS deleted
