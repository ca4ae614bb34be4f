// Creates a playbook with its initial draft version 1. Params: $workspaceId, $id, $title, $slug, $summary,
// $description, $functionArea, $visibility, $ownerId, $tags, $now, $versionId, $content (JSON text),
// $changeNote, $createdBy. Null properties are simply not stored. Columns: id.
MATCH (w:Workspace {id: $workspaceId})
CREATE (p:Playbook {
  id: $id, workspaceId: $workspaceId, title: $title, slug: $slug, summary: $summary, description: $description,
  functionArea: $functionArea, visibility: $visibility, ownerId: $ownerId, tags: $tags, createdAt: $now, updatedAt: $now
})
CREATE (p)-[:IN_WORKSPACE]->(w)
CREATE (v:PlaybookVersion {
  id: $versionId, workspaceId: $workspaceId, playbookId: $id, versionNumber: 1, status: 'draft',
  content: $content, changeNote: $changeNote, createdAt: $now, createdBy: $createdBy
})
CREATE (p)-[:HAS_VERSION]->(v)
RETURN p.id AS id
