// The fields of a context query's answer for the nodes of one page, in the order given.
// Params: $workspaceId, $ids. Columns: the node's fields, content included.
UNWIND range(0, size($ids) - 1) AS i
MATCH (n:ContextNode {id: $ids[i]})
WHERE n.workspaceId = $workspaceId
RETURN n.id AS id, n.slug AS slug, n.title AS title, n.nodeType AS nodeType, n.description AS description,
       n.content AS content, n.importance AS importance, n.updatedAt AS updatedAt
ORDER BY i
