// Adds a draft version numbered one above the highest (run after lock.cypher in the same transaction, so the
// numbers are gap-free and distinct however many creations race). Its content is $content, or the content of
// $basedOnVersionId, which must be a version of the same playbook.
// Params: $workspaceId, $playbookId, $versionId, $content (JSON text or null), $basedOnVersionId (or null),
// $changeNote, $createdBy, $now. Columns: sourceFound, version (null when sourceFound is false; its content only
// as copiedContent, when it was copied from $basedOnVersionId: $content is not sent back).
MATCH (p:Playbook {id: $playbookId, workspaceId: $workspaceId})
CALL (p) {
  MATCH (p)-[:HAS_VERSION]->(v:PlaybookVersion)
  RETURN max(v.versionNumber) AS maxNumber
}
OPTIONAL CALL (p) {
  MATCH (p)-[:HAS_VERSION]->(b:PlaybookVersion {id: $basedOnVersionId})
  RETURN b.content AS sourceContent
}
WITH p, maxNumber, sourceContent, $basedOnVersionId IS NULL OR sourceContent IS NOT NULL AS sourceFound
OPTIONAL CALL (p, maxNumber, sourceContent, sourceFound) {
  WITH p, maxNumber, sourceContent, sourceFound
  WHERE sourceFound
  CREATE (v:PlaybookVersion {
    id: $versionId, workspaceId: $workspaceId, playbookId: p.id, versionNumber: coalesce(maxNumber, 0) + 1,
    status: 'draft', content: coalesce(sourceContent, $content), changeNote: $changeNote, createdAt: $now,
    createdBy: $createdBy
  })
  CREATE (p)-[:HAS_VERSION]->(v)
  RETURN v
}
RETURN sourceFound, v {.id, .versionNumber, .status, copiedContent: sourceContent, .changeNote, .createdAt, .createdBy, .approvedAt} AS version
