// One webhook subscription. Params: $workspaceId, $subscriptionId. Columns: subscription. No row: none.
MATCH (s:WebhookSubscription {id: $subscriptionId, workspaceId: $workspaceId})
WHERE s.status <> 'deleted'
RETURN s {.id, .url, .eventTypes, .description, .status, .disabledReason, .disabledAt, .createdAt, .updatedAt} AS subscription
