// Undoes part of a workspace import that failed: deletes the given items of the workspace with their
// relationships (a context node takes its links and wikilinks with it, a playbook its links and its tie to its
// versions). Params: $workspaceId, $label ('Annotation'|'Feedback'|'ContextNode'|'PlaybookVersion'|'Playbook',
// chosen by the service), $ids (a bounded batch of the import's own ids). Columns: deleted.
CALL () {
  MATCH (x:Annotation {workspaceId: $workspaceId}) WHERE $label = 'Annotation' AND x.id IN $ids RETURN x
  UNION
  MATCH (x:Feedback {workspaceId: $workspaceId}) WHERE $label = 'Feedback' AND x.id IN $ids RETURN x
  UNION
  MATCH (x:ContextNode {workspaceId: $workspaceId}) WHERE $label = 'ContextNode' AND x.id IN $ids RETURN x
  UNION
  MATCH (x:PlaybookVersion {workspaceId: $workspaceId}) WHERE $label = 'PlaybookVersion' AND x.id IN $ids RETURN x
  UNION
  MATCH (x:Playbook {workspaceId: $workspaceId}) WHERE $label = 'Playbook' AND x.id IN $ids RETURN x
}
DETACH DELETE x
RETURN count(*) AS deleted
