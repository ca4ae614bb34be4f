// Queues a delivery again (manual redelivery): it goes back to pending, after everything already queued for the
// subscription (a new number in its order). Params: $workspaceId, $subscriptionId, $deliveryId.
// Columns: delivery, subscriptionStatus. No row: no such delivery of this subscription.
MATCH (s:WebhookSubscription {id: $subscriptionId, workspaceId: $workspaceId})
WHERE s.status <> 'deleted'
MATCH (d:WebhookDelivery {id: $deliveryId, subscriptionId: s.id, workspaceId: $workspaceId})
SET s.lastSeq = coalesce(s.lastSeq, 0) + 1
SET d.seq = s.lastSeq, d.status = 'pending', d.attempts = 0, d.firstFailedAt = null
RETURN d {.id, .eventId, .eventType, .seq, .status, .attempts, .lastStatusCode, .lastError, .lastAttemptAt, .deliveredAt, .createdAt} AS delivery,
       s.status AS subscriptionStatus
