// Creates a webhook subscription of the workspace (its secret is stored to sign deliveries; never read back by the API).
// Params: $workspaceId, $subscription {id, url, eventTypes, description, secret, createdAt}.
// Columns: subscription. No row: no such workspace.
MATCH (w:Workspace {id: $workspaceId})
CREATE (s:WebhookSubscription)
SET s = $subscription, s.workspaceId = w.id, s.status = 'active', s.lastSeq = 0, s.updatedAt = $subscription.createdAt
RETURN s {.id, .url, .eventTypes, .description, .status, .disabledReason, .disabledAt, .createdAt, .updatedAt} AS subscription
