// Un-archives a playbook; a playbook that is not archived is left as it is.
// Params: $workspaceId, $playbookId, $now. Columns: id. No row when it is not in the workspace.
MATCH (p:Playbook {id: $playbookId, workspaceId: $workspaceId})
WITH p, p.archivedAt AS archivedBefore
SET p.updatedAt = CASE WHEN p.archivedAt IS NULL THEN p.updatedAt ELSE $now END,
    p.archivedAt = null
RETURN p.id AS id, archivedBefore, p.archivedAt AS archivedAt
