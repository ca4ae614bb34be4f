// Archives a playbook (soft delete; the record and its slug are kept). Archiving an archived one keeps its first
// archivedAt. Params: $workspaceId, $playbookId, $now. Columns: id. No row when it is not in the workspace.
MATCH (p:Playbook {id: $playbookId, workspaceId: $workspaceId})
WITH p, p.archivedAt AS archivedBefore
SET p.updatedAt = CASE WHEN p.archivedAt IS NULL THEN $now ELSE p.updatedAt END,
    p.archivedAt = coalesce(p.archivedAt, $now)
RETURN p.id AS id, archivedBefore, p.archivedAt AS archivedAt
