// The workspace's webhook subscriptions, oldest first. Params: $workspaceId. Columns: subscription.
MATCH (s:WebhookSubscription {workspaceId: $workspaceId})
WHERE s.status <> 'deleted'
RETURN s {.id, .url, .eventTypes, .description, .status, .disabledReason, .disabledAt, .createdAt, .updatedAt} AS subscription
ORDER BY s.createdAt, s.id
