// One page of the annotations a principal may see in a workspace: every workspace_overlay annotation, and the
// agent_local ones it wrote itself. Oldest first, ties broken by id, so pages never overlap.
// Params: $workspaceId, $principalId (user or agent id), $targetType, $targetId, $scopeType (each a filter, or null),
// $skip, $limit. Columns: total (annotations matching), annotations (the page, API annotation objects).
MATCH (a:Annotation {workspaceId: $workspaceId})
WHERE (a.scopeType = 'workspace_overlay' OR a.authorId = $principalId)
  AND ($targetId IS NULL OR a.targetId = $targetId)
  AND ($targetType IS NULL OR a.targetType = $targetType)
  AND ($scopeType IS NULL OR a.scopeType = $scopeType)
WITH a ORDER BY a.createdAt ASC, a.id ASC
WITH collect(a) AS matched
RETURN size(matched) AS total,
       [a IN matched[$skip..($skip + $limit)] | a {.id, .targetType, .targetId, .scopeType, .title, .content, .source,
         .authorId, .createdAt}] AS annotations
