// A workspace import's annotations (label Annotation, relationship ANNOTATES) or feedback (Feedback, ABOUT), each
// tied to its target. Params: $workspaceId, $label, $relType (fixed by the service, travelling as values),
// $remarks (list of maps of stored properties, with targetType and targetId). Columns: none.
UNWIND $remarks AS remark
CALL (remark) {
  MATCH (t:Playbook {id: remark.targetId, workspaceId: $workspaceId}) WHERE remark.targetType = 'playbook' RETURN t
  UNION
  MATCH (t:PlaybookVersion {id: remark.targetId, workspaceId: $workspaceId}) WHERE remark.targetType = 'playbook_version' RETURN t
  UNION
  MATCH (t:ContextNode {id: remark.targetId, workspaceId: $workspaceId}) WHERE remark.targetType = 'context_node' RETURN t
}
CREATE (a:$($label))
SET a = remark, a.workspaceId = $workspaceId
CREATE (a)-[:$($relType)]->(t)
