// Approves a draft version and deprecates the previously approved one, in one statement (run after
// lock.cypher in the same transaction, so racing approvals leave exactly one approved version).
// Params: $workspaceId, $playbookId, $versionId, $now. Columns: wasDraft, version (after the change).
// No row when the version is not one of this playbook's.
MATCH (p:Playbook {id: $playbookId, workspaceId: $workspaceId})-[:HAS_VERSION]->(v:PlaybookVersion {id: $versionId})
WITH p, v, v.status = 'draft' AS wasDraft
CALL (p, v, wasDraft) {
  WITH p, v, wasDraft
  WHERE wasDraft
  OPTIONAL MATCH (p)-[:HAS_VERSION]->(old:PlaybookVersion {status: 'approved'})
  SET old.status = 'deprecated'
  WITH DISTINCT v
  SET v.status = 'approved', v.approvedAt = $now
}
RETURN wasDraft, v {.id, .versionNumber, .status, .content, .changeNote, .createdAt, .createdBy, .approvedAt} AS version
