// title: Requires cycles
// description: Context nodes that require themselves through a chain of requires links (at most 8 links
//   long): each cycle once, starting from its smallest id. A bundle still ends, but the chain cannot be read
//   in order.
// param limit (integer, 1..1000, default 100): the most cycles to list
// columns: length, cycle, nodeIds
// Only nodes with both an incoming and an outgoing requires link can be on a cycle; the walk starts there.
// `readFirst IS NOT NULL` lets the (workspaceId, readFirst) index give the workspace's nodes.
MATCH (n:ContextNode {workspaceId: $workspaceId})
WHERE n.readFirst IS NOT NULL AND EXISTS { (n)-[:REQUIRES]->() } AND EXISTS { (n)<-[:REQUIRES]-() }
MATCH p = (n)-[:REQUIRES]->{1,8}(back)
WHERE back = n
WITH p, [m IN nodes(p) | m.id] AS ids
WHERE all(i IN range(1, size(ids) - 2) WHERE ids[0] < ids[i] AND NOT ids[i] IN ids[1..i])
RETURN length(p) AS length,
       reduce(s = '', m IN nodes(p) | s + CASE WHEN s = '' THEN '' ELSE ' -> ' END + m.slug) AS cycle,
       ids[..-1] AS nodeIds
ORDER BY length, cycle
LIMIT $limit
