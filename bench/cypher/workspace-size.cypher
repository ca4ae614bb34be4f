// Parameters: $workspaceId. Columns: workspace (whether it exists), nodes, playbooks.
// Whether a generated workspace is still whole, so that a later run may reuse it.
OPTIONAL MATCH (w:Workspace {id: $workspaceId})
RETURN w IS NOT NULL AS workspace,
       COUNT { MATCH (n:ContextNode {workspaceId: $workspaceId}) } AS nodes,
       COUNT { MATCH (p:Playbook {workspaceId: $workspaceId}) } AS playbooks
