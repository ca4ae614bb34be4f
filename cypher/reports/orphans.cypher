// title: Orphans
// description: Live context nodes that nothing links to (no live node and no active playbook has a link of
//   any type to them) and that are not read-first: no bundle can ever include them.
// param limit (integer, 1..10000, default 1000): the most nodes to list, most recently updated first
// columns: id, slug, title, nodeType, importance, updatedAt
// The (workspaceId, readFirst) index finds the workspace's non-read-first nodes; the existence test reads each
// one's incoming links.
MATCH (n:ContextNode {workspaceId: $workspaceId, readFirst: false})
WHERE n.status = 'live'
  AND NOT EXISTS {
    MATCH (n)<-[:REQUIRES|REFERENCES|RELATES_TO|SUPERSEDES|INDEX_ENTRY]-(source)
    WHERE source.workspaceId = $workspaceId AND source.archivedAt IS NULL
  }
RETURN n.id AS id, n.slug AS slug, n.title AS title, n.nodeType AS nodeType, n.importance AS importance, n.updatedAt AS updatedAt
ORDER BY updatedAt DESC, id
LIMIT $limit
