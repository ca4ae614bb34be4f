// Records feedback about a playbook, a playbook version or a context node of the workspace.
// Params: $workspaceId, $targetType ('playbook'|'playbook_version'|'context_node'), $targetId,
// $feedback (map: id, feedbackType, summary, status, authorId, authorKind, createdAt, updatedAt).
// Columns: feedback (the API's feedback object). No row when no target of that type and id is in the workspace.
// The target is found by one UNION branch per label, so each branch seeks its unique id index.
CALL () {
  MATCH (t:Playbook {id: $targetId, workspaceId: $workspaceId}) WHERE $targetType = 'playbook' RETURN t
  UNION
  MATCH (t:PlaybookVersion {id: $targetId, workspaceId: $workspaceId}) WHERE $targetType = 'playbook_version' RETURN t
  UNION
  MATCH (t:ContextNode {id: $targetId, workspaceId: $workspaceId}) WHERE $targetType = 'context_node' RETURN t
}
CREATE (f:Feedback)
SET f = $feedback, f.workspaceId = $workspaceId, f.targetType = $targetType, f.targetId = $targetId
CREATE (f)-[:ABOUT]->(t)
WITH f, t
OPTIONAL MATCH (p:Playbook {workspaceId: $workspaceId})-[:HAS_VERSION]->(t)
RETURN f {.id, .targetType, .targetId, .feedbackType, .summary, .status, .resolutionNote, .authorId, .authorKind,
          .createdAt, .updatedAt,
          target: {title: coalesce(p.title, t.title), playbookId: coalesce(p.id, CASE WHEN t:Playbook THEN t.id END),
                   versionNumber: t.versionNumber}} AS feedback
