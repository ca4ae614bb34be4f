// The annotations on the given targets that a principal may see (used by the bundle): workspace_overlay ones,
// and agent_local ones written by $principalId. Oldest first, ties broken by id.
// Params: $workspaceId, $targetIds (list of playbook, playbook version and context node ids), $principalId.
// Columns: annotation (the API's annotation object), one row per annotation.
MATCH (a:Annotation {workspaceId: $workspaceId})
WHERE a.targetId IN $targetIds
  AND (a.scopeType = 'workspace_overlay' OR a.authorId = $principalId)
RETURN a {.id, .targetType, .targetId, .scopeType, .title, .content, .source, .authorId, .createdAt} AS annotation
ORDER BY a.createdAt ASC, a.id ASC
