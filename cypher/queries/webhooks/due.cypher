// The relay's sweep: active subscriptions with deliveries waiting in the outbox. Not scoped by one workspace: the
// dispatcher serves every workspace. Params: $limit. Columns: workspaceId, subscriptionId.
MATCH (d:WebhookDelivery {status: 'pending'})
WITH DISTINCT d.workspaceId AS workspaceId, d.subscriptionId AS subscriptionId
MATCH (s:WebhookSubscription {id: subscriptionId, workspaceId: workspaceId, status: 'active'})
RETURN workspaceId, subscriptionId
LIMIT toInteger($limit)
