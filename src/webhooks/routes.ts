import { WorkspacePath } from '../api/common-schemas.js';
import { type AnyOperation, defineOperation } from '../api/operation.js';
import {
  CreateSubscriptionBody, CreatedSubscriptionSchema, DeliveryListSchema, DeliveryPath, DeliveryQuery, DeliverySchema, SubscriptionListSchema,
  SubscriptionPath, SubscriptionSchema, UpdateSubscriptionBody,
} from './schemas.js';
import type { WebhookService } from './service.js';

const base = { tag: 'Webhooks', access: { kind: 'workspace', minRole: 'owner' } } as const;

const deliveryNote =
  'Each event is POSTed per the Standard Webhooks specification (webhook-id, webhook-timestamp, webhook-signature: HMAC-SHA256 ' +
  'with the whsec_ secret), at least once, in the order the changes were committed, retried with exponential backoff for about a ' +
  'day; a subscription whose deliveries fail for that long is disabled, with disabledReason saying why.';

/** Owners' webhook subscriptions and their delivery logs. */
export function webhookRoutes(services: { webhooks: WebhookService }): AnyOperation[] {
  return [
    defineOperation({
      ...base, method: 'post', path: '/api/v1/workspaces/:workspaceId/webhooks', operationId: 'createWebhook', summary: 'Subscribe a URL to events',
      description:
        `The response holds the signing secret, shown this once. ${deliveryNote} A URL that is or resolves to a special-purpose ` +
        'address (loopback, private, link-local, documentation, reserved: every range of the IANA special-purpose registries) is 400 unless the ' +
        'operator allows such targets (WEBHOOK_ALLOW_PRIVATE_TARGETS); the same check runs before every delivery attempt.',
      params: WorkspacePath, body: CreateSubscriptionBody,
      responses: { 201: { description: 'The subscription, with its secret', schema: CreatedSubscriptionSchema } },
      run: ({ caller, body }) => services.webhooks.create(caller, body),
    }),
    defineOperation({
      ...base, method: 'get', path: '/api/v1/workspaces/:workspaceId/webhooks', operationId: 'listWebhooks', summary: 'The workspace’s webhook subscriptions',
      params: WorkspacePath,
      responses: { 200: { description: 'Subscriptions, oldest first (never their secrets)', schema: SubscriptionListSchema } },
      handler: async ({ ctx, caller }) => {
        ctx.body = { subscriptions: await services.webhooks.list(caller) };
      },
    }),
    defineOperation({
      ...base, method: 'get', path: '/api/v1/workspaces/:workspaceId/webhooks/:subscriptionId', operationId: 'getWebhook', summary: 'One webhook subscription',
      params: SubscriptionPath,
      responses: { 200: { description: 'The subscription', schema: SubscriptionSchema } },
      run: ({ caller, params }) => services.webhooks.get(caller, params.subscriptionId),
    }),
    defineOperation({
      ...base, method: 'patch', path: '/api/v1/workspaces/:workspaceId/webhooks/:subscriptionId', operationId: 'updateWebhook', summary: 'Change, disable or re-enable a subscription',
      description: 'status active re-enables a disabled subscription (its reason is cleared); deliveries given up meanwhile can be redelivered.',
      params: SubscriptionPath, body: UpdateSubscriptionBody,
      responses: { 200: { description: 'The subscription', schema: SubscriptionSchema } },
      run: ({ caller, params, body }) => services.webhooks.update(caller, params.subscriptionId, body),
    }),
    defineOperation({
      ...base, method: 'delete', path: '/api/v1/workspaces/:workspaceId/webhooks/:subscriptionId', operationId: 'deleteWebhook', summary: 'Delete a subscription',
      description: 'Nothing more is sent; deliveries still waiting are cancelled.',
      params: SubscriptionPath,
      responses: { 204: { description: 'Deleted' } },
      run: async ({ caller, params }) => {
        await services.webhooks.delete(caller, params.subscriptionId);
      },
    }),
    defineOperation({
      ...base, method: 'get', path: '/api/v1/workspaces/:workspaceId/webhooks/:subscriptionId/deliveries', operationId: 'listWebhookDeliveries',
      summary: 'A subscription’s delivery log', description: 'Newest first: each delivery’s status, attempts, last response code and error, and times.',
      params: SubscriptionPath, query: DeliveryQuery,
      responses: { 200: { description: 'Deliveries', schema: DeliveryListSchema } },
      handler: async ({ ctx, caller, params, query }) => {
        ctx.body = { deliveries: await services.webhooks.deliveries(caller, params.subscriptionId, query) };
      },
    }),
    defineOperation({
      ...base, method: 'post', path: '/api/v1/workspaces/:workspaceId/webhooks/:subscriptionId/deliveries/:deliveryId/redeliver', operationId: 'redeliverWebhook',
      summary: 'Send a delivery again', description: 'Queued after what is already waiting for the subscription, with the same webhook-id. 409 when the subscription is disabled.',
      params: DeliveryPath,
      responses: { 202: { description: 'Queued', schema: DeliverySchema } },
      errors: [409],
      run: ({ caller, params }) => services.webhooks.redeliver(caller, params.subscriptionId, params.deliveryId),
    }),
  ];
}
