// The relay's sweep: active subscriptions with deliveries waiting in the outbox. Not scoped by one workspace: the
// dispatcher serves every workspace. Params: $limit. Columns: workspaceId, subscriptionId.
MATCH (s:WebhookSubscription {status: 'active'})
WHERE EXISTS { MATCH (d:WebhookDelivery {subscriptionId: s.id, status: 'pending'}) WHERE d.workspaceId = s.workspaceId }
RETURN s.workspaceId AS workspaceId, s.id AS subscriptionId
LIMIT toInteger($limit)
