// Changes a subscription's url, eventTypes, description or status. Re-enabling (status active) clears the reason it
// was disabled. Params: $workspaceId, $subscriptionId, $changes (map), $now.
// Columns: subscription, before (the changed fields as they were). No row: none.
MATCH (s:WebhookSubscription {id: $subscriptionId, workspaceId: $workspaceId})
WHERE s.status <> 'deleted'
WITH s, s {.url, .eventTypes, .description, .status} AS before
SET s += $changes, s.updatedAt = $now
SET s.disabledReason = CASE WHEN s.status = 'active' THEN null ELSE s.disabledReason END,
    s.disabledAt = CASE WHEN s.status = 'active' THEN null ELSE coalesce(s.disabledAt, $now) END
RETURN s {.id, .url, .eventTypes, .description, .status, .disabledReason, .disabledAt, .createdAt, .updatedAt} AS subscription, before
