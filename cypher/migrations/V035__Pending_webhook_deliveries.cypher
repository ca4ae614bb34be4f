// The dispatcher asks for a subscription's oldest pending deliveries, and the relay for the subscriptions that
// have any: with the status between the subscription and the sequence number, both are seeks, however many
// deliveries a subscription has made before. The index on the status alone served only the relay's sweep, and
// every delivery written or delivered paid for it.
CREATE INDEX webhook_delivery_pending IF NOT EXISTS FOR (d:WebhookDelivery) ON (d.subscriptionId, d.status, d.seq);
DROP INDEX webhook_delivery_status IF EXISTS;
