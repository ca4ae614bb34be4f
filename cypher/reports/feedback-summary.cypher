// title: Feedback by type and target
// description: Feedback given in a period, counted per target and feedback type, with how much of it is
//   still open.
// param from (date, default 1970-01-01): the first day counted (UTC)
// param to (date, default 9999-12-31): the last day counted (UTC)
// param limit (integer, 1..10000, default 1000): the most rows to list, the most feedback first
// columns: targetType, targetId, title, feedbackType, total, open, firstAt, lastAt
// The (workspaceId, createdAt) index gives the period. Timestamps are ISO strings and compare as text: every
// one of the day $to starts with $to + 'T', which sorts below $to + 'U'.
MATCH (f:Feedback {workspaceId: $workspaceId})
WHERE f.createdAt >= $from AND f.createdAt < $to + 'U'
OPTIONAL MATCH (f)-[:ABOUT]->(t)
WITH t, f.targetType AS targetType, f.targetId AS targetId, f.feedbackType AS feedbackType,
     count(f) AS total, count(CASE WHEN f.status = 'open' THEN 1 END) AS open, min(f.createdAt) AS firstAt, max(f.createdAt) AS lastAt
RETURN targetType, targetId, coalesce(t.title, 'version ' + toString(t.versionNumber) + ' of ' + t.playbookId) AS title,
       feedbackType, total, open, firstAt, lastAt
ORDER BY total DESC, targetId, feedbackType
LIMIT $limit
