// title: Near-duplicate titles
// description: Live context nodes whose titles are the same once case, punctuation, spacing and word order
//   are ignored ("Brand voice: tone" and "tone - brand voice"): candidates to merge.
// param limit (integer, 1..10000, default 500): the most groups to list, the largest first
// columns: normalizedTitle, count, ids, titles
MATCH (n:ContextNode {workspaceId: $workspaceId})
WHERE n.status = 'live'
WITH n, split(toLower(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(
       n.title, '-', ' '), '_', ' '), ':', ' '), ',', ' '), '.', ' '), '/', ' '), '(', ' '), ')', ' '), '!', ' '), '?', ' '), '"', ' '), '\'', ' ')), ' ') AS words
WITH n, COLLECT { UNWIND words AS w WITH w WHERE w <> '' RETURN DISTINCT w ORDER BY w } AS key
WITH reduce(s = '', w IN key | s + CASE WHEN s = '' THEN '' ELSE ' ' END + w) AS normalizedTitle, n
WHERE normalizedTitle <> ''
WITH normalizedTitle, count(n) AS count, collect(n.id) AS ids, collect(n.title) AS titles
WHERE count > 1
RETURN normalizedTitle, count, ids, titles
ORDER BY count DESC, normalizedTitle
LIMIT $limit
