// title: Stale context
// description: What readers have flagged or what has been replaced: targets with open 'outdated' or
//   'incorrect' feedback (reason open-feedback), and live nodes that another node supersedes but that an
//   active playbook with an approved version still links to (reason superseded-but-linked).
// param limit (integer, 1..10000, default 1000): the most rows to list
// columns: reason, targetType, targetId, title, detail, since
CALL () {
  MATCH (f:Feedback {workspaceId: $workspaceId, status: 'open'})-[:ABOUT]->(t)
  WHERE f.feedbackType IN ['outdated', 'incorrect'] AND t.workspaceId = $workspaceId
  WITH t, f.targetType AS targetType, count(f) AS open, collect(DISTINCT f.feedbackType) AS types, min(f.createdAt) AS since
  RETURN 'open-feedback' AS reason, targetType, t.id AS targetId,
         coalesce(t.title, 'version ' + toString(t.versionNumber) + ' of ' + t.playbookId) AS title,
         toString(open) + ' open: ' + reduce(s = '', x IN types | s + CASE WHEN s = '' THEN '' ELSE ', ' END + x) AS detail,
         since
  UNION ALL
  MATCH (p:Playbook {workspaceId: $workspaceId})-[:REQUIRES|REFERENCES|RELATES_TO|INDEX_ENTRY]->(old:ContextNode)
  WHERE p.archivedAt IS NULL AND old.status = 'live'
    AND EXISTS { MATCH (p)-[:HAS_VERSION]->(v:PlaybookVersion) WHERE v.status = 'approved' }
  MATCH (old)<-[:SUPERSEDES]-(newer)
  WHERE newer.workspaceId = $workspaceId AND newer.archivedAt IS NULL
  WITH old, collect(DISTINCT newer.slug) AS newers, collect(DISTINCT p.slug) AS playbooks
  RETURN 'superseded-but-linked' AS reason, 'context_node' AS targetType, old.id AS targetId, old.title AS title,
         'superseded by ' + reduce(s = '', x IN newers | s + CASE WHEN s = '' THEN '' ELSE ', ' END + x) +
         '; linked from playbooks ' + reduce(s = '', x IN playbooks | s + CASE WHEN s = '' THEN '' ELSE ', ' END + x) AS detail,
         old.updatedAt AS since
}
RETURN reason, targetType, targetId, title, detail, since
ORDER BY reason, since, targetId
LIMIT $limit
