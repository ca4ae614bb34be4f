// A workspace export's annotations or feedback, oldest first (ties by their texts, then id).
// Params: $workspaceId, $label ('Annotation'|'Feedback', chosen by the service). Columns: remark (map of every
// stored property; the service drops workspaceId).
CALL () {
  MATCH (a:Annotation {workspaceId: $workspaceId}) WHERE $label = 'Annotation' RETURN a
  UNION
  MATCH (a:Feedback {workspaceId: $workspaceId}) WHERE $label = 'Feedback' RETURN a
}
WITH a ORDER BY a.createdAt, coalesce(a.title, a.summary), coalesce(a.content, a.feedbackType), a.id
RETURN a {.*} AS remark
