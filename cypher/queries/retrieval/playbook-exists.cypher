// Whether the playbook is live in the workspace (a context query naming another is a 404).
// Params: $workspaceId, $playbookId. Columns: id.
MATCH (p:Playbook {id: $playbookId})
WHERE p.workspaceId = $workspaceId AND p.archivedAt IS NULL
RETURN p.id AS id
