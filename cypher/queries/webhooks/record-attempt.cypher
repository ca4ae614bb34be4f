// The outcome of one delivery attempt. A success marks it delivered; a failure counts it and, when $giveUp, marks
// it failed and disables the subscription with $reason (the owner sees it), its other pending deliveries failed too.
// Params: $workspaceId, $subscriptionId, $deliveryId, $ok, $statusCode (or null), $error (or null), $giveUp, $reason, $now.
// Columns: status.
MATCH (d:WebhookDelivery {id: $deliveryId, subscriptionId: $subscriptionId, workspaceId: $workspaceId})
SET d.attempts = coalesce(d.attempts, 0) + 1, d.lastAttemptAt = $now, d.lastStatusCode = $statusCode, d.lastError = $error,
    d.status = CASE WHEN $ok THEN 'delivered' WHEN $giveUp THEN 'failed' ELSE d.status END,
    d.deliveredAt = CASE WHEN $ok THEN $now ELSE d.deliveredAt END,
    d.firstFailedAt = CASE WHEN $ok THEN null ELSE coalesce(d.firstFailedAt, $now) END
WITH d
CALL (d) {
  WITH d
  WHERE $giveUp AND NOT $ok
  MATCH (s:WebhookSubscription {id: $subscriptionId, workspaceId: $workspaceId})
  SET s.status = 'disabled', s.disabledAt = $now, s.disabledReason = $reason, s.updatedAt = $now
  WITH s
  MATCH (o:WebhookDelivery {subscriptionId: s.id, workspaceId: $workspaceId, status: 'pending'})
  SET o.status = 'failed'
}
RETURN d.status AS status
