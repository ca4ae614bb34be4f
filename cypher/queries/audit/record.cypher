// Records one audit event in the transaction of the change it describes and, for each active webhook subscription
// of the workspace that takes its action, the outbox record of its delivery. The subscription is only read: the
// delivery gets its number in the subscription's order from the dispatcher (webhooks/next-deliveries.cypher), so
// changes to one workspace do not wait for one another here.
// Params: $event {id, workspaceId (null for the operator's changes outside a workspace), action, actorKind, actorId,
//   sponsorUserId, clientId and clientName (the hosted client an agent acted through, or null), requestId, targetIds, before (JSON text or null), after (JSON text or null), at}, $workspaceId,
//   $writtenAt (epoch milliseconds with a fraction, the order the dispatcher numbers deliveries in).
// Columns: deliveries (how many outbox records were written).
CREATE (e:AuditEvent)
SET e = $event
WITH e
CALL (e) {
  MATCH (s:WebhookSubscription {workspaceId: $workspaceId, status: 'active'})
  WHERE e.action IN s.eventTypes
  CREATE (d:WebhookDelivery {
    id: 'whd_' + replace(randomUUID(), '-', ''),
    workspaceId: $workspaceId, subscriptionId: s.id, eventId: e.id, eventType: e.action, seq: null,
    status: 'pending', attempts: 0, createdAt: e.at, nextAttemptAt: e.at, writtenAt: $writtenAt
  })
  RETURN count(d) AS deliveries
}
RETURN deliveries
