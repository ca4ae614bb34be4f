// One playbook with its versions (newest first) and the context nodes it links to. Visible when it belongs to
// $workspaceId, or when it is parent_readonly and its workspace is a direct child of $workspaceId (read-only
// view for the parent's members). Archived playbooks are returned too (archivedAt set).
// Params: $workspaceId, $playbookId, $linkRelTypes, $linkTypeOf (src/nodes/link-types.ts). Columns: playbook (map), versions (list; content is JSON text),
// contextNodes (list of {linkId, linkType (API spelling), id, title, slug, nodeType, status}). No row when not visible.
MATCH (p:Playbook {id: $playbookId})
WHERE p.workspaceId = $workspaceId
   OR (p.visibility = 'parent_readonly'
       AND EXISTS { (:Workspace {id: p.workspaceId})-[:CHILD_OF]->(:Workspace {id: $workspaceId}) })
CALL (p) {
  MATCH (p)-[:HAS_VERSION]->(v:PlaybookVersion)
  WITH v ORDER BY v.versionNumber DESC
  RETURN collect(v {.id, .versionNumber, .status, .content, .changeNote, .createdAt, .createdBy, .approvedAt}) AS versions
}
CALL (p) {
  MATCH (p)-[r]->(n:ContextNode)
  WHERE type(r) IN $linkRelTypes AND n.workspaceId = p.workspaceId
  WITH r, n ORDER BY toLower(n.title), r.id
  RETURN collect({linkId: r.id, linkType: $linkTypeOf[type(r)], id: n.id, title: n.title, slug: n.slug,
                  nodeType: n.nodeType, status: n.status}) AS contextNodes
}
RETURN p {.id, .workspaceId, .title, .slug, .summary, .description, .functionArea, .visibility, .ownerId, .tags,
          .createdAt, .updatedAt, .archivedAt} AS playbook, versions, contextNodes
