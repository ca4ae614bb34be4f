// A workspace import's playbook versions, each under its playbook (created first by create-playbooks).
// Params: $workspaceId, $versions (list of maps of stored properties with playbookId; content is JSON text).
// Columns: none.
UNWIND $versions AS version
MATCH (p:Playbook {id: version.playbookId, workspaceId: $workspaceId})
CREATE (v:PlaybookVersion)
SET v = version, v.workspaceId = $workspaceId
CREATE (p)-[:HAS_VERSION]->(v)
