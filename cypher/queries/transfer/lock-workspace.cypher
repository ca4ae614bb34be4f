// First statement of a workspace import: takes the workspace's write lock for its graph and its playbook slugs
// (graphChangedAt, playbooksChangedAt, as node and playbook writes do) and says whether it is empty.
// Params: $workspaceId, $now. Columns: id, playbooks, nodes (counts). No row when the workspace does not exist.
MATCH (w:Workspace {id: $workspaceId})
SET w.graphChangedAt = $now, w.playbooksChangedAt = $now
RETURN w.id AS id,
       COUNT { MATCH (p:Playbook {workspaceId: $workspaceId}) } AS playbooks,
       COUNT { MATCH (n:ContextNode {workspaceId: $workspaceId}) } AS nodes
