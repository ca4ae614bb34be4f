// Deliveries the receiver accepted, recorded together after a run of sends (a failure goes through record-attempt).
// Params: $workspaceId, $subscriptionId, $items [{deliveryId, statusCode}], $now. Columns: delivered.
UNWIND $items AS item
MATCH (d:WebhookDelivery {id: item.deliveryId})
WHERE d.subscriptionId = $subscriptionId AND d.workspaceId = $workspaceId
SET d.attempts = coalesce(d.attempts, 0) + 1, d.lastAttemptAt = $now, d.lastStatusCode = item.statusCode, d.lastError = null,
    d.status = 'delivered', d.deliveredAt = $now, d.firstFailedAt = null
RETURN count(d) AS delivered
