// One page of a workspace's feedback, newest first, ties broken by id (descending), so pages never overlap.
// Params: $workspaceId, $status, $targetType, $targetId, $feedbackType (each a filter, or null), $skip, $limit.
// Columns: total (feedback matching the filters), feedback (the page, API feedback objects).
MATCH (f:Feedback {workspaceId: $workspaceId})
WHERE ($status IS NULL OR f.status = $status)
  AND ($targetType IS NULL OR f.targetType = $targetType)
  AND ($targetId IS NULL OR f.targetId = $targetId)
  AND ($feedbackType IS NULL OR f.feedbackType = $feedbackType)
WITH f ORDER BY f.createdAt DESC, f.id DESC
WITH collect(f) AS matched
RETURN size(matched) AS total,
       [f IN matched[$skip..($skip + $limit)] | f {.id, .targetType, .targetId, .feedbackType, .summary, .status,
         .resolutionNote, .authorId, .authorKind, .createdAt, .updatedAt}] AS feedback
