// title: Nodes no playbook reaches
// description: Live context nodes that no active playbook reaches within two links (requires, references,
//   relates-to or index-entry, through live nodes), and that are not read-first: a bundle of the default depth
//   never includes them.
// param limit (integer, 1..10000, default 1000): the most nodes to list, the most important first
// columns: id, slug, title, nodeType, importance, updatedAt
// The reached set is small (playbooks and two hops); every other node is tested against it as a set.
CALL () {
  MATCH (p:Playbook {workspaceId: $workspaceId})
  WHERE p.archivedAt IS NULL
  OPTIONAL MATCH (p)-[:REQUIRES|REFERENCES|RELATES_TO|INDEX_ENTRY]->(a:ContextNode)
  WHERE a.status = 'live' AND a.workspaceId = $workspaceId
  OPTIONAL MATCH (a)-[:REQUIRES|REFERENCES|RELATES_TO|INDEX_ENTRY]->(b:ContextNode)
  WHERE b.status = 'live' AND b.workspaceId = $workspaceId
  WITH collect(DISTINCT a.id) + collect(DISTINCT b.id) AS ids
  RETURN ids AS reached
}
MATCH (n:ContextNode {workspaceId: $workspaceId, readFirst: false})
WHERE n.status = 'live' AND NOT n.id IN reached
RETURN n.id AS id, n.slug AS slug, n.title AS title, n.nodeType AS nodeType, n.importance AS importance, n.updatedAt AS updatedAt
ORDER BY importance DESC, id
LIMIT $limit
