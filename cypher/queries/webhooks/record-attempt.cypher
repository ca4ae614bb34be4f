// A failed delivery attempt (the delivered ones go through record-delivered): counts it and, when $giveUp, marks
// it failed and disables the subscription with $reason (the owner sees it), its other pending deliveries failed too.
// Params: $workspaceId, $subscriptionId, $deliveryId, $statusCode (or null), $error, $giveUp, $reason, $now.
// Columns: status.
MATCH (d:WebhookDelivery {id: $deliveryId, subscriptionId: $subscriptionId, workspaceId: $workspaceId})
SET d.attempts = coalesce(d.attempts, 0) + 1, d.lastAttemptAt = $now, d.lastStatusCode = $statusCode, d.lastError = $error,
    d.status = CASE WHEN $giveUp THEN 'failed' ELSE d.status END,
    d.firstFailedAt = coalesce(d.firstFailedAt, $now)
WITH d
CALL (d) {
  WITH d
  WHERE $giveUp
  MATCH (s:WebhookSubscription {id: $subscriptionId, workspaceId: $workspaceId})
  SET s.status = 'disabled', s.disabledAt = $now, s.disabledReason = $reason, s.updatedAt = $now
  WITH s
  MATCH (o:WebhookDelivery {subscriptionId: s.id, workspaceId: $workspaceId, status: 'pending'})
  SET o.status = 'failed'
}
RETURN d.status AS status
