// A workspace import's playbooks. Params: $workspaceId, $playbooks (list of maps of stored properties, without
// versions; null values are not stored). Columns: none.
MATCH (w:Workspace {id: $workspaceId})
UNWIND $playbooks AS playbook
CREATE (p:Playbook)
SET p = playbook, p.workspaceId = $workspaceId
CREATE (p)-[:IN_WORKSPACE]->(w)
