import { type AuditStamp, pick, recordAudit, writeAudited } from '../audit/recorder.js';
import type { GraphExecutor, Row } from '../infra/neo4j.js';
import type { Delivery, Subscription } from './schemas.js';

function toSubscription(s: Row): Subscription {
  return {
    id: s.id, url: s.url, eventTypes: s.eventTypes, description: s.description ?? null, status: s.status,
    disabledReason: s.disabledReason ?? null, disabledAt: s.disabledAt ?? null, createdAt: s.createdAt, updatedAt: s.updatedAt,
  };
}

function toDelivery(d: Row): Delivery {
  return {
    id: d.id, eventId: d.eventId, eventType: d.eventType, seq: d.seq ?? null, status: d.status, attempts: d.attempts ?? 0,
    lastStatusCode: d.lastStatusCode ?? null, lastError: d.lastError ?? null, lastAttemptAt: d.lastAttemptAt ?? null,
    deliveredAt: d.deliveredAt ?? null, createdAt: d.createdAt,
  };
}

/** What the dispatcher sends next for a subscription. */
export interface NextDelivery {
  delivery: { id: string; seq: number; attempts: number; firstFailedAt: string | null };
  event: Row;
  url: string;
  secret: string;
}

/** Webhook subscriptions, their outbox and delivery log (cypher/queries/webhooks). */
export class WebhookRepository {
  constructor(private readonly graph: GraphExecutor) {}

  async create(workspaceId: string, subscription: Omit<Subscription, 'status' | 'disabledReason' | 'disabledAt' | 'updatedAt'> & { secret: string }, stamp: AuditStamp): Promise<Subscription | undefined> {
    const row = await writeAudited(this.graph, 'webhooks/create', { workspaceId, subscription }, stamp, (r) =>
      r && { action: 'webhook.subscription.created', workspaceId, targetIds: [subscription.id], after: { url: subscription.url, eventTypes: subscription.eventTypes, description: subscription.description } });
    return row && toSubscription(row.subscription);
  }

  async list(workspaceId: string): Promise<Subscription[]> {
    return (await this.graph.read('webhooks/list', { workspaceId })).map((r) => toSubscription(r.subscription));
  }

  async get(workspaceId: string, subscriptionId: string): Promise<Subscription | undefined> {
    const [row] = await this.graph.read('webhooks/get', { workspaceId, subscriptionId });
    return row && toSubscription(row.subscription);
  }

  async update(workspaceId: string, subscriptionId: string, changes: Record<string, unknown>, now: string, stamp: AuditStamp): Promise<Subscription | undefined> {
    const fields = Object.keys(changes);
    const row = await writeAudited(this.graph, 'webhooks/update', { workspaceId, subscriptionId, changes, now }, stamp, (r) =>
      r && { action: 'webhook.subscription.updated', workspaceId, targetIds: [subscriptionId], before: pick(r.before, fields), after: pick(r.subscription, fields) });
    return row && toSubscription(row.subscription);
  }

  async delete(workspaceId: string, subscriptionId: string, now: string, stamp: AuditStamp): Promise<boolean> {
    const row = await writeAudited(this.graph, 'webhooks/delete', { workspaceId, subscriptionId, now }, stamp, (r) =>
      r && { action: 'webhook.subscription.deleted', workspaceId, targetIds: [subscriptionId], after: null });
    return Boolean(row);
  }

  async deliveries(workspaceId: string, subscriptionId: string, status: string | null, limit: number): Promise<Delivery[]> {
    return (await this.graph.read('webhooks/list-deliveries', { workspaceId, subscriptionId, status, limit })).map((r) => toDelivery(r.delivery));
  }

  async redeliver(workspaceId: string, subscriptionId: string, deliveryId: string, stamp: AuditStamp): Promise<{ delivery: Delivery; subscriptionStatus: string } | undefined> {
    return this.graph.writeTx(async (tx) => {
      const [row] = await tx.run('webhooks/redeliver', { workspaceId, subscriptionId, deliveryId });
      if (!row) return undefined;
      await recordAudit(tx, stamp, { action: 'webhook.delivery.redelivered', workspaceId, targetIds: [deliveryId, subscriptionId], after: { seq: row.delivery.seq } });
      return { delivery: toDelivery(row.delivery), subscriptionStatus: row.subscriptionStatus };
    });
  }

  /** The relay's sweep (every workspace): active subscriptions with deliveries waiting. */
  async due(limit: number): Promise<{ workspaceId: string; subscriptionId: string }[]> {
    return (await this.graph.read('webhooks/due', { limit })) as { workspaceId: string; subscriptionId: string }[];
  }

  /**
   * The subscription's next `limit` pending deliveries, in order, numbering those not numbered yet (a write); none
   * when it has none or is not active.
   */
  async next(workspaceId: string, subscriptionId: string, limit: number): Promise<NextDelivery[]> {
    return (await this.graph.write('webhooks/next-deliveries', { workspaceId, subscriptionId, limit })) as NextDelivery[];
  }

  /** Deliveries the receiver accepted, each with its status code. */
  async recordDelivered(workspaceId: string, subscriptionId: string, items: { deliveryId: string; statusCode: number | null }[], now: string): Promise<void> {
    if (items.length) await this.graph.write('webhooks/record-delivered', { workspaceId, subscriptionId, items, now });
  }

  async recordAttempt(input: {
    workspaceId: string; subscriptionId: string; deliveryId: string; statusCode: number | null; error: string | null;
    giveUp: boolean; reason: string | null; now: string;
  }): Promise<void> {
    await this.graph.write('webhooks/record-attempt', input);
  }
}
