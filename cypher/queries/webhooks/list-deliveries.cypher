// A subscription's delivery log, newest first (those not numbered yet, seq null, first of all). Params: $workspaceId, $subscriptionId, $status (or null), $limit.
// Columns: delivery.
MATCH (d:WebhookDelivery {subscriptionId: $subscriptionId, workspaceId: $workspaceId})
WHERE $status IS NULL OR d.status = $status
RETURN d {.id, .eventId, .eventType, .seq, .status, .attempts, .lastStatusCode, .lastError, .lastAttemptAt, .deliveredAt, .createdAt} AS delivery
ORDER BY d.seq IS NULL DESC, d.seq DESC, d.createdAt DESC, d.id DESC
LIMIT toInteger($limit)
