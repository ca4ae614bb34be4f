// title: Playbooks awaiting approval
// description: Active playbooks with no approved version (agents get no instructions from them) or with draft
//   versions waiting for an editor; the oldest waiting draft first.
// param limit (integer, 1..10000, default 1000): the most playbooks to list
// columns: id, slug, title, hasApprovedVersion, approvedVersion, draftsWaiting, oldestDraftAt, latestVersion
MATCH (p:Playbook {workspaceId: $workspaceId})
WHERE p.archivedAt IS NULL
CALL (p) {
  MATCH (p)-[:HAS_VERSION]->(v:PlaybookVersion)
  RETURN max(CASE WHEN v.status = 'approved' THEN v.versionNumber END) AS approvedVersion,
         count(CASE WHEN v.status = 'draft' THEN 1 END) AS draftsWaiting,
         min(CASE WHEN v.status = 'draft' THEN v.createdAt END) AS oldestDraftAt,
         max(v.versionNumber) AS latestVersion
}
WITH p, approvedVersion, draftsWaiting, oldestDraftAt, latestVersion
WHERE approvedVersion IS NULL OR draftsWaiting > 0
RETURN p.id AS id, p.slug AS slug, p.title AS title, approvedVersion IS NOT NULL AS hasApprovedVersion, approvedVersion,
       draftsWaiting, oldestDraftAt, latestVersion
ORDER BY hasApprovedVersion, oldestDraftAt, id
LIMIT $limit
