import type * as T from '../generated/types.gen.js';
import * as op from '../generated/operations.gen.js';
import type { Operations } from '../operations.js';
import { type Paged, pagedByCursor } from '../paging.js';
import type { CallOptions } from '../transport.js';
import type { Body, Item, Query } from './types.js';

/** The workspace's audit log (owners). */
export const auditPart = (ops: Operations) => {
  const part = {
    /** Every event matching the query, newest first, page after page (following nextCursor). */
    list: (query: Omit<Query<T.ListAuditEventsData>, 'cursor'> = {}, call?: CallOptions): Paged<Item<T.ListAuditEventsResponse['events']>, T.ListAuditEventsResponse> =>
      pagedByCursor(
        query as Query<T.ListAuditEventsData>,
        (q) => part.page(q, call),
        (r) => r.events,
        (r, q) => (r.nextCursor === null ? undefined : { ...q, cursor: r.nextCursor }),
      ),
    page: (query: Query<T.ListAuditEventsData> = {}, call?: CallOptions) => ops.send(op.listAuditEvents, { path: ops.path(), query }, call),
  };
  return part;
};

/** Webhook subscriptions and their delivery logs (owners). */
export const webhooksPart = (ops: Operations) => ({
  /** The signing secret is in this answer only. */
  create: (body: Body<T.CreateWebhookData>, call?: CallOptions) => ops.send(op.createWebhook, { path: ops.path(), body }, call),
  list: (call?: CallOptions) => ops.send(op.listWebhooks, { path: ops.path() }, call).then((r) => r.subscriptions),
  get: (subscriptionId: string, call?: CallOptions) => ops.send(op.getWebhook, { path: ops.path({ subscriptionId }) }, call),
  update: (subscriptionId: string, body: Body<T.UpdateWebhookData>, call?: CallOptions) =>
    ops.send(op.updateWebhook, { path: ops.path({ subscriptionId }), body }, call),
  delete: (subscriptionId: string, call?: CallOptions) => ops.send(op.deleteWebhook, { path: ops.path({ subscriptionId }) }, call),
  deliveries: (subscriptionId: string, query: Query<T.ListWebhookDeliveriesData> = {}, call?: CallOptions) =>
    ops.send(op.listWebhookDeliveries, { path: ops.path({ subscriptionId }), query }, call).then((r) => r.deliveries),
  /** Queues the delivery again: each call sends it once more. */
  redeliver: (subscriptionId: string, deliveryId: string, call?: CallOptions) =>
    ops.send(op.redeliverWebhook, { path: ops.path({ subscriptionId, deliveryId }) }, call),
});
