// Deletes a subscription: marked deleted (its delivery log stays for the audit trail), its pending deliveries
// cancelled. Params: $workspaceId, $subscriptionId, $now. Columns: id. No row: none.
MATCH (s:WebhookSubscription {id: $subscriptionId, workspaceId: $workspaceId})
WHERE s.status <> 'deleted'
SET s.status = 'deleted', s.updatedAt = $now, s.secret = null
WITH s
CALL (s) {
  MATCH (d:WebhookDelivery {subscriptionId: s.id, workspaceId: $workspaceId, status: 'pending'})
  SET d.status = 'cancelled'
}
RETURN s.id AS id
