// First statement of every change to one playbook (update, new version, approval): writing the playbook node
// takes its write lock, so concurrent changes of one playbook run one after another and each then reads the
// committed state (max versionNumber, the approved version). Also bumps updatedAt: every such change is one.
// Params: $workspaceId, $playbookId, $now. Columns: archivedAt. No row when it is not in the workspace.
MATCH (p:Playbook {id: $playbookId, workspaceId: $workspaceId})
SET p.updatedAt = $now
RETURN p.archivedAt AS archivedAt
