// The oldest pending deliveries of an active subscription, in its order (`seq`), with what each sends: the
// dispatcher sends them one after the other and records the delivered ones together (record-delivered).
// Params: $workspaceId, $subscriptionId, $limit. Columns: delivery, event, url, secret. No row: nothing to send.
MATCH (s:WebhookSubscription {id: $subscriptionId, workspaceId: $workspaceId, status: 'active'})
MATCH (d:WebhookDelivery {subscriptionId: s.id, status: 'pending'})
WHERE d.workspaceId = $workspaceId
WITH s, d ORDER BY d.seq LIMIT toInteger($limit)
MATCH (e:AuditEvent {id: d.eventId, workspaceId: $workspaceId})
RETURN d {.id, .seq, .attempts, .firstFailedAt} AS delivery,
       e {.id, .workspaceId, .action, .actorKind, .actorId, .sponsorUserId, .requestId, .targetIds, .before, .after, .at} AS event,
       s.url AS url, s.secret AS secret
ORDER BY delivery.seq
