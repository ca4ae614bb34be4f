// One page of a workspace's audit events, newest first (ties broken by id, so pages never overlap).
// Params: $workspaceId; filters, each null when not given: $actor (an actor id, or operator|analyst), $action (exact),
// $actionPrefix (`playbook.` from `playbook.*`), $targetId, $from (inclusive), $to (exclusive); the cursor
// $cursorAt/$cursorId (the last event of the previous page, or null); $limit (one more than the page, to tell
// whether another follows).
// Columns: event.
MATCH (e:AuditEvent {workspaceId: $workspaceId})
WHERE ($from IS NULL OR e.at >= $from) AND ($to IS NULL OR e.at < $to)
  AND ($actor IS NULL OR e.actorId = $actor OR e.actorKind = $actor)
  AND ($action IS NULL OR e.action = $action)
  AND ($actionPrefix IS NULL OR e.action STARTS WITH $actionPrefix)
  AND ($targetId IS NULL OR $targetId IN e.targetIds)
  AND ($cursorAt IS NULL OR e.at < $cursorAt OR (e.at = $cursorAt AND e.id < $cursorId))
RETURN e {.id, .workspaceId, .action, .actorKind, .actorId, .sponsorUserId, .clientId, .clientName, .requestId, .targetIds, .before, .after, .at} AS event
ORDER BY e.at DESC, e.id DESC
LIMIT toInteger($limit)
