// Parameters: $workspaceId, $rows: list of {id, slug, title, description, content, nodeType, agentSummary,
// importance (0-100), readFirst, edgeCaseOnly, status ('live'/'archived'), createdAt, updatedAt, archivedAt (null unless archived)}.
// Creates one batch of context nodes, each (:ContextNode)-[:IN_WORKSPACE]->(:Workspace).
MATCH (w:Workspace {id: $workspaceId})
UNWIND $rows AS row
CREATE (n:ContextNode {
  id: row.id,
  workspaceId: $workspaceId,
  slug: row.slug,
  title: row.title,
  description: row.description,
  content: row.content,
  nodeType: row.nodeType,
  agentSummary: row.agentSummary,
  importance: toInteger(row.importance),
  readFirst: row.readFirst,
  edgeCaseOnly: row.edgeCaseOnly,
  status: row.status,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
  archivedAt: row.archivedAt
})
CREATE (n)-[:IN_WORKSPACE]->(w)
RETURN count(n) AS created
