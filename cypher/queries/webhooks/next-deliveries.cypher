// The oldest pending deliveries of an active subscription, in its order (`seq`), with what each sends: the
// dispatcher sends them one after the other and records the delivered ones together (record-delivered).
// A change's transaction writes its deliveries without a number, so that changes never wait for one another on
// the subscription; they are numbered here, in the order they were written (writtenAt), after those numbered before.
// The subscription is write-locked first, so one dispatcher at a time numbers its deliveries (as a redelivery
// does, redeliver.cypher): no number is given twice or skipped.
// Params: $workspaceId, $subscriptionId, $limit. Columns: delivery, event, url, secret. No row: nothing to send.
MATCH (s:WebhookSubscription {id: $subscriptionId, workspaceId: $workspaceId, status: 'active'})
SET s.lastSeq = coalesce(s.lastSeq, 0)
WITH s
CALL (s) {
  MATCH (d:WebhookDelivery {subscriptionId: s.id, status: 'pending'})
  WHERE d.workspaceId = $workspaceId AND d.seq IS NULL
  WITH d ORDER BY coalesce(d.writtenAt, 0), d.createdAt, d.id
  LIMIT toInteger($limit)
  WITH collect(d) AS fresh
  CALL (fresh, s) {
    UNWIND range(0, size(fresh) - 1) AS i
    WITH fresh[i] AS d, s.lastSeq + i + 1 AS seq
    SET d.seq = seq
  }
  SET s.lastSeq = s.lastSeq + size(fresh)
}
WITH s
MATCH (d:WebhookDelivery {subscriptionId: s.id, status: 'pending'})
WHERE d.workspaceId = $workspaceId AND d.seq IS NOT NULL
WITH s, d ORDER BY d.seq LIMIT toInteger($limit)
MATCH (e:AuditEvent {id: d.eventId, workspaceId: $workspaceId})
RETURN d {.id, .seq, .attempts, .firstFailedAt} AS delivery,
       e {.id, .workspaceId, .action, .actorKind, .actorId, .sponsorUserId, .clientId, .clientName, .requestId, .targetIds, .before, .after, .at} AS event,
       s.url AS url, s.secret AS secret
ORDER BY delivery.seq
