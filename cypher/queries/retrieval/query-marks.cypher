// What ranks a context query's candidates beyond their scores, for the given node ids of the workspace: whether
// a live node or playbook supersedes the node, the types of open outdated/incorrect feedback about it (both
// demote it, as in a bundle), whether it is in the neighbourhood of $playbookId (linked from the playbook, or
// from a node the playbook links to), and the fields the query's filters look at.
// Params: $workspaceId, $ids, $playbookId (or null). Columns: id, nodeType, tags, importance, superseded, flags, nearPlaybook.
CALL () {
  OPTIONAL MATCH (p:Playbook {id: $playbookId})
  WHERE p.workspaceId = $workspaceId AND p.archivedAt IS NULL
  RETURN COLLECT {
    MATCH (p)-[:REQUIRES|REFERENCES|RELATES_TO|INDEX_ENTRY]->(a:ContextNode)
    RETURN a.id AS id
    UNION
    MATCH (p)-[:REQUIRES|REFERENCES|RELATES_TO|INDEX_ENTRY]->(:ContextNode)-[:REQUIRES|REFERENCES|RELATES_TO|INDEX_ENTRY]->(b:ContextNode)
    RETURN b.id AS id
  } AS near
}
UNWIND $ids AS id
MATCH (n:ContextNode {id: id})
WHERE n.workspaceId = $workspaceId AND n.status = 'live'
RETURN n.id AS id, n.nodeType AS nodeType, coalesce(n.tags, []) AS tags, n.importance AS importance,
       EXISTS {
         MATCH (s)-[:SUPERSEDES]->(n)
         WHERE s.workspaceId = $workspaceId AND (s:Playbook AND s.archivedAt IS NULL OR s:ContextNode AND s.status = 'live')
       } AS superseded,
       COLLECT {
         MATCH (f:Feedback)-[:ABOUT]->(n)
         WHERE f.workspaceId = $workspaceId AND f.status = 'open' AND f.feedbackType IN ['outdated', 'incorrect']
         RETURN DISTINCT f.feedbackType ORDER BY f.feedbackType
       } AS flags,
       n.id IN near AS nearPlaybook
