// Triage: sets the status of one feedback item and, when $setNote, its resolution note (null removes it;
// otherwise the stored note is kept). Params: $workspaceId, $feedbackId, $status, $setNote, $resolutionNote, $now.
// Columns: feedback (the API's feedback object). No row: no such feedback in this workspace.
MATCH (f:Feedback {id: $feedbackId, workspaceId: $workspaceId})-[:ABOUT]->(t)
OPTIONAL MATCH (p:Playbook {workspaceId: $workspaceId})-[:HAS_VERSION]->(t)
WITH f, t, p, f.status AS previousStatus, f.resolutionNote AS previousNote
SET f.status = $status,
    f.resolutionNote = CASE WHEN $setNote THEN $resolutionNote ELSE f.resolutionNote END,
    f.updatedAt = $now
RETURN f {.id, .targetType, .targetId, .feedbackType, .summary, .status, .resolutionNote, .authorId, .authorKind,
          .createdAt, .updatedAt,
          target: {title: coalesce(p.title, t.title), playbookId: coalesce(p.id, CASE WHEN t:Playbook THEN t.id END),
                   versionNumber: t.versionNumber}} AS feedback, previousStatus, previousNote
