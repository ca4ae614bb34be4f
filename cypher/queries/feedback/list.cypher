// One page of a workspace's feedback, newest first, ties broken by id (descending), so pages never overlap.
// Params: $workspaceId, $status, $targetType, $targetId, $feedbackType (each a filter, or null), $skip, $limit.
// Columns: total (feedback matching the filters), feedback (the page, API feedback objects, each naming its
// target as it is now: only the page's targets are looked up).
MATCH (f:Feedback {workspaceId: $workspaceId})
WHERE ($status IS NULL OR f.status = $status)
  AND ($targetType IS NULL OR f.targetType = $targetType)
  AND ($targetId IS NULL OR f.targetId = $targetId)
  AND ($feedbackType IS NULL OR f.feedbackType = $feedbackType)
WITH f ORDER BY f.createdAt DESC, f.id DESC
WITH collect(f) AS matched
RETURN size(matched) AS total,
       [f IN matched[$skip..($skip + $limit)] |
         f {.id, .targetType, .targetId, .feedbackType, .summary, .status, .resolutionNote, .authorId, .authorKind,
            .createdAt, .updatedAt,
            target: head(COLLECT {
              MATCH (f)-[:ABOUT]->(t)
              OPTIONAL MATCH (p:Playbook {workspaceId: $workspaceId})-[:HAS_VERSION]->(t)
              RETURN {title: coalesce(p.title, t.title), playbookId: coalesce(p.id, CASE WHEN t:Playbook THEN t.id END),
                      versionNumber: t.versionNumber}
            })}] AS feedback
