import { type Static, Type } from '@sinclair/typebox';
import { Description, Id, Nullable, NullableTimestamp, Strict, Timestamp, literals, named } from '../api/common-schemas.js';

/** The actions a subscription may ask for: the changes other systems react to (docs/api.md, "Webhooks"). */
export const webhookEventTypes = [
  'playbook.created', 'playbook.updated', 'playbook.archived', 'playbook.restored',
  'playbook.version.created', 'playbook.version.approved', 'playbook.version.rolled_back',
  'node.created', 'node.updated', 'node.archived', 'node.restored', 'node.imported', 'workspace.imported',
  'link.created', 'link.deleted',
  'feedback.created', 'feedback.resolved', 'feedback.dismissed', 'feedback.reopened',
  'agent.created', 'agent.updated', 'agent.deactivated', 'agent.reactivated', 'agent.key.created', 'agent.key.revoked', 'agent.key.rotated',
  'quota.warning', 'quota.exhausted',
] as const;
export type WebhookEventType = (typeof webhookEventTypes)[number];

const EventTypes = Type.Array(named('WebhookEventType', literals(webhookEventTypes)), { minItems: 1, maxItems: webhookEventTypes.length, uniqueItems: true });
const Url = Type.String({ minLength: 1, maxLength: 2000, format: 'uri', description: 'http(s) URL the events are POSTed to' });
const SubscriptionStatus = named('WebhookStatus', literals(['active', 'disabled'] as const));
const DeliveryStatus = named('DeliveryStatus', literals(['pending', 'delivered', 'failed', 'cancelled'] as const));

export const SubscriptionSchema = named('WebhookSubscription', Type.Object({
  id: Type.String(),
  url: Type.String(),
  eventTypes: Type.Array(Type.String()),
  description: Nullable(Type.String()),
  status: SubscriptionStatus,
  disabledReason: Nullable(Type.String({ description: 'Why the service disabled it (a day of failed deliveries), or null' })),
  disabledAt: NullableTimestamp,
  createdAt: Timestamp,
  updatedAt: Timestamp,
}));
export type Subscription = Static<typeof SubscriptionSchema>;

export const CreatedSubscriptionSchema = Type.Composite([
  SubscriptionSchema,
  Type.Object({ secret: Type.String({ description: 'whsec_… signing secret; shown only in this response' }) }),
]);

export const SubscriptionListSchema = Type.Object({ subscriptions: Type.Array(SubscriptionSchema) });

export const CreateSubscriptionBody = Strict(
  { url: Url, eventTypes: EventTypes, description: Type.Optional(Description) },
  { required: ['url', 'eventTypes'] },
);
export type CreateSubscriptionInput = Static<typeof CreateSubscriptionBody>;

export const UpdateSubscriptionBody = Strict({
  url: Type.Optional(Url),
  eventTypes: Type.Optional(EventTypes),
  description: Type.Optional(Nullable(Description)),
  status: Type.Optional(SubscriptionStatus),
});
export type UpdateSubscriptionInput = Static<typeof UpdateSubscriptionBody>;

export const SubscriptionPath = Strict({ workspaceId: Id('Workspace id'), subscriptionId: Id('Subscription id') });
export const DeliveryPath = Strict({ workspaceId: Id('Workspace id'), subscriptionId: Id('Subscription id'), deliveryId: Id('Delivery id') });

export const DeliverySchema = named('WebhookDelivery', Type.Object({
  id: Type.String({ description: 'Also the webhook-id header of every attempt' }),
  eventId: Type.String({ description: 'The audit event delivered' }),
  eventType: Type.String(),
  seq: Nullable(Type.Integer({ description: 'Its place in the subscription’s order; null until the dispatcher takes it up, moments after the change' })),
  status: DeliveryStatus,
  attempts: Type.Integer({ minimum: 0 }),
  lastStatusCode: Nullable(Type.Integer()),
  lastError: Nullable(Type.String()),
  lastAttemptAt: NullableTimestamp,
  deliveredAt: NullableTimestamp,
  createdAt: Timestamp,
}));
export type Delivery = Static<typeof DeliverySchema>;

export const DeliveryListSchema = Type.Object({ deliveries: Type.Array(DeliverySchema) });
export const DeliveryQuery = Strict({
  status: Type.Optional(DeliveryStatus),
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
});
export type DeliveryQuery = Static<typeof DeliveryQuery>;
