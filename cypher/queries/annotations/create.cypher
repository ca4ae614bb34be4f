// Creates an annotation on a playbook, a playbook version or a context node of the workspace.
// Params: $workspaceId, $targetType ('playbook'|'playbook_version'|'context_node'), $targetId,
// $annotation (map: id, scopeType, title, content, source, authorId, authorKind, createdAt).
// Columns: annotation (the API's annotation object). No row when no target of that type and id is in the workspace.
// The target is found by one UNION branch per label, so each branch seeks its unique id index.
CALL () {
  MATCH (t:Playbook {id: $targetId, workspaceId: $workspaceId}) WHERE $targetType = 'playbook' RETURN t
  UNION
  MATCH (t:PlaybookVersion {id: $targetId, workspaceId: $workspaceId}) WHERE $targetType = 'playbook_version' RETURN t
  UNION
  MATCH (t:ContextNode {id: $targetId, workspaceId: $workspaceId}) WHERE $targetType = 'context_node' RETURN t
}
CREATE (a:Annotation)
SET a = $annotation, a.workspaceId = $workspaceId, a.targetType = $targetType, a.targetId = $targetId
CREATE (a)-[:ANNOTATES]->(t)
RETURN a {.id, .targetType, .targetId, .scopeType, .title, .content, .source, .authorId, .createdAt} AS annotation
