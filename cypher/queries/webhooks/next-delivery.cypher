// The oldest pending delivery of an active subscription (its order is the order of `seq`), with what it sends.
// Params: $workspaceId, $subscriptionId. Columns: delivery, event, url, secret. No row: nothing to send.
MATCH (s:WebhookSubscription {id: $subscriptionId, workspaceId: $workspaceId, status: 'active'})
MATCH (d:WebhookDelivery {subscriptionId: s.id, workspaceId: $workspaceId, status: 'pending'})
WITH s, d ORDER BY d.seq LIMIT 1
MATCH (e:AuditEvent {id: d.eventId, workspaceId: $workspaceId})
RETURN d {.id, .seq, .attempts, .firstFailedAt} AS delivery,
       e {.id, .workspaceId, .action, .actorKind, .actorId, .sponsorUserId, .requestId, .targetIds, .before, .after, .at} AS event,
       s.url AS url, s.secret AS secret
