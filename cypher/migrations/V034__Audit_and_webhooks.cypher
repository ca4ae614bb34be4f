// The audit log (:AuditEvent, one per change, written in the change's transaction) and the webhooks
// (:WebhookSubscription, and its outbox and delivery log :WebhookDelivery).
CREATE CONSTRAINT audit_event_id IF NOT EXISTS FOR (e:AuditEvent) REQUIRE e.id IS UNIQUE;
CREATE INDEX audit_event_workspace_at IF NOT EXISTS FOR (e:AuditEvent) ON (e.workspaceId, e.at);
CREATE INDEX audit_event_at IF NOT EXISTS FOR (e:AuditEvent) ON (e.at);
CREATE CONSTRAINT webhook_subscription_id IF NOT EXISTS FOR (s:WebhookSubscription) REQUIRE s.id IS UNIQUE;
CREATE INDEX webhook_subscription_workspace IF NOT EXISTS FOR (s:WebhookSubscription) ON (s.workspaceId, s.status);
CREATE CONSTRAINT webhook_delivery_id IF NOT EXISTS FOR (d:WebhookDelivery) REQUIRE d.id IS UNIQUE;
CREATE INDEX webhook_delivery_subscription_seq IF NOT EXISTS FOR (d:WebhookDelivery) ON (d.subscriptionId, d.seq);
CREATE INDEX webhook_delivery_status IF NOT EXISTS FOR (d:WebhookDelivery) ON (d.status);
