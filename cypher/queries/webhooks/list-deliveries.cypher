// A subscription's delivery log, newest first. Params: $workspaceId, $subscriptionId, $status (or null), $limit.
// Columns: delivery.
MATCH (d:WebhookDelivery {subscriptionId: $subscriptionId, workspaceId: $workspaceId})
WHERE $status IS NULL OR d.status = $status
RETURN d {.id, .eventId, .eventType, .seq, .status, .attempts, .lastStatusCode, .lastError, .lastAttemptAt, .deliveredAt, .createdAt} AS delivery
ORDER BY d.seq DESC
LIMIT toInteger($limit)
