// Parameters: $workspaceId, $rows: list of {id, slug, title, summary, description, functionArea, visibility, ownerId,
// tags (list of strings), createdAt, updatedAt, version: {id, content (JSON text), changeNote, createdAt, approvedAt}}.
// Creates playbooks, each (:Playbook)-[:IN_WORKSPACE]->(:Workspace) with one approved version 1 via [:HAS_VERSION].
MATCH (w:Workspace {id: $workspaceId})
UNWIND $rows AS row
CREATE (p:Playbook {
  id: row.id,
  workspaceId: $workspaceId,
  title: row.title,
  slug: row.slug,
  summary: row.summary,
  description: row.description,
  functionArea: row.functionArea,
  visibility: row.visibility,
  ownerId: row.ownerId,
  tags: row.tags,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt
})
CREATE (p)-[:IN_WORKSPACE]->(w)
CREATE (v:PlaybookVersion {
  id: row.version.id,
  workspaceId: $workspaceId,
  playbookId: row.id,
  versionNumber: 1,
  status: 'approved',
  content: row.version.content,
  changeNote: row.version.changeNote,
  createdAt: row.version.createdAt,
  createdBy: row.ownerId,
  approvedAt: row.version.approvedAt
})
CREATE (p)-[:HAS_VERSION]->(v)
RETURN count(p) AS created
