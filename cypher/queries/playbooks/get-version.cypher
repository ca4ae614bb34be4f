// One version of a playbook, with the same visibility rule as get.cypher (own workspace, or a parent_readonly
// playbook of a direct child workspace). Params: $workspaceId, $playbookId, $versionId.
// Columns: version (content is JSON text). No row when either is not visible.
MATCH (p:Playbook {id: $playbookId})
WHERE p.workspaceId = $workspaceId
   OR (p.visibility = 'parent_readonly'
       AND EXISTS { (:Workspace {id: p.workspaceId})-[:CHILD_OF]->(:Workspace {id: $workspaceId}) })
MATCH (p)-[:HAS_VERSION]->(v:PlaybookVersion {id: $versionId})
RETURN v {.id, .versionNumber, .status, .content, .changeNote, .createdAt, .createdBy, .approvedAt} AS version
