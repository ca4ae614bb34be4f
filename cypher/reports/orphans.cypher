// title: Orphans
// description: Live context nodes that nothing links to (no node and no playbook has a link of any type to
//   them, archived ones included) and that are not read-first: no bundle can ever include them.
// param limit (integer, 1..10000, default 1000): the most nodes to list, most recently updated first
// columns: id, slug, title, nodeType, importance, updatedAt
// The (workspaceId, readFirst) index finds the workspace's non-read-first nodes; whether any link comes in is
// read from each node's degree, without visiting its sources (which made the report several times slower).
MATCH (n:ContextNode {workspaceId: $workspaceId, readFirst: false})
WHERE NOT EXISTS { (n)<-[:REQUIRES|REFERENCES|RELATES_TO|SUPERSEDES|INDEX_ENTRY]-() }
  AND n.status = 'live'
RETURN n.id AS id, n.slug AS slug, n.title AS title, n.nodeType AS nodeType, n.importance AS importance, n.updatedAt AS updatedAt
ORDER BY updatedAt DESC, id
LIMIT $limit
