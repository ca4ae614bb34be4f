// The operator's view of the audit log: every workspace's events and the operator's own outside any workspace,
// newest first. Not scoped by one workspace: $workspaceId is a filter here (null: all).
// Params and columns: as audit/list.cypher.
MATCH (e:AuditEvent)
WHERE ($workspaceId IS NULL OR e.workspaceId = $workspaceId)
  AND ($from IS NULL OR e.at >= $from) AND ($to IS NULL OR e.at < $to)
  AND ($actor IS NULL OR e.actorId = $actor OR e.actorKind = $actor)
  AND ($action IS NULL OR e.action = $action)
  AND ($actionPrefix IS NULL OR e.action STARTS WITH $actionPrefix)
  AND ($targetId IS NULL OR $targetId IN e.targetIds)
  AND ($cursorAt IS NULL OR e.at < $cursorAt OR (e.at = $cursorAt AND e.id < $cursorId))
RETURN e {.id, .workspaceId, .action, .actorKind, .actorId, .sponsorUserId, .clientId, .clientName, .requestId, .targetIds, .before, .after, .at} AS event
ORDER BY e.at DESC, e.id DESC
LIMIT toInteger($limit)
