// title: Near-duplicate titles
// description: Live context nodes whose titles are the same once case, punctuation and spacing are ignored
//   ("Brand voice: tone" and "brand voice - tone"): candidates to merge.
// param limit (integer, 1..10000, default 500): the most groups to list, the largest first
// columns: normalizedTitle, count, ids, titles
// Word order is not ignored: sorting each title's words (a subquery per node) made the report twice as slow.
// The (workspaceId, readFirst) index, with readFirst only required to exist, gives the workspace's nodes.
MATCH (n:ContextNode {workspaceId: $workspaceId})
WHERE n.readFirst IS NOT NULL AND n.status = 'live'
WITH n, split(toLower(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(
       n.title, '-', ' '), '_', ' '), ':', ' '), ',', ' '), '.', ' '), '/', ' '), '(', ' '), ')', ' '), '!', ' '), '?', ' '), '"', ' '), '\'', ' ')), ' ') AS words
WITH reduce(s = '', w IN words | s + CASE WHEN w = '' THEN '' WHEN s = '' THEN w ELSE ' ' + w END) AS normalizedTitle, n
WHERE normalizedTitle <> ''
WITH normalizedTitle, count(n) AS count, collect(n.id) AS ids, collect(n.title) AS titles
WHERE count > 1
RETURN normalizedTitle, count, ids, titles
ORDER BY count DESC, normalizedTitle
LIMIT $limit
