import { randomBytes } from 'node:crypto';
import { stampOf } from '../audit/recorder.js';
import type { Caller } from '../auth/caller.js';
import { AppError, invalidField, notFound } from '../errors.js';
import { newId } from '../infra/ids.js';
import type { ServiceDeps } from '../service-deps.js';
import { WebhookRepository } from './repository.js';
import { SecretBox } from '../infra/secret-box.js';
import type { CreateSubscriptionInput, Delivery, DeliveryQuery, Subscription, UpdateSubscriptionInput } from './schemas.js';
import { checkTarget } from './url-guard.js';

/** A Standard Webhooks signing secret: whsec_ and 32 random bytes in base64. */
export const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

/** Owners manage their workspace's webhook subscriptions and read their delivery logs (decisions: owner only). */
export class WebhookService {
  private readonly repo: WebhookRepository;
  private readonly secrets: SecretBox;

  constructor(private readonly deps: Pick<ServiceDeps, 'graph' | 'clock' | 'config'>) {
    this.repo = new WebhookRepository(deps.graph);
    this.secrets = SecretBox.fromConfig(deps.config);
  }

  async create(caller: Caller, input: CreateSubscriptionInput): Promise<Subscription & { secret: string }> {
    await this.checkUrl(input.url);
    const now = this.now();
    const secret = newSecret();
    const created = await this.repo.create(
      caller.workspaceId,
      { id: newId('whs'), url: input.url, eventTypes: input.eventTypes, description: input.description ?? null, createdAt: now, secret: this.secrets.seal(secret) },
      stampOf(caller, now),
    );
    if (!created) throw notFound('Workspace');
    return { ...created, secret };
  }

  list(caller: Caller): Promise<Subscription[]> {
    return this.repo.list(caller.workspaceId);
  }

  async get(caller: Caller, subscriptionId: string): Promise<Subscription> {
    const found = await this.repo.get(caller.workspaceId, subscriptionId);
    if (!found) throw notFound('Webhook subscription');
    return found;
  }

  async update(caller: Caller, subscriptionId: string, input: UpdateSubscriptionInput): Promise<Subscription> {
    if (input.url !== undefined) await this.checkUrl(input.url);
    if (Object.keys(input).length === 0) return this.get(caller, subscriptionId);
    const now = this.now();
    const updated = await this.repo.update(caller.workspaceId, subscriptionId, { ...input }, now, stampOf(caller, now));
    if (!updated) throw notFound('Webhook subscription');
    return updated;
  }

  async delete(caller: Caller, subscriptionId: string): Promise<void> {
    const now = this.now();
    if (!(await this.repo.delete(caller.workspaceId, subscriptionId, now, stampOf(caller, now)))) throw notFound('Webhook subscription');
  }

  async deliveries(caller: Caller, subscriptionId: string, query: DeliveryQuery): Promise<Delivery[]> {
    await this.get(caller, subscriptionId);
    return this.repo.deliveries(caller.workspaceId, subscriptionId, query.status ?? null, query.limit);
  }

  /** Sends a delivery again, after whatever is already queued for the subscription; a disabled one must be re-enabled first. */
  async redeliver(caller: Caller, subscriptionId: string, deliveryId: string): Promise<Delivery> {
    const subscription = await this.get(caller, subscriptionId);
    if (subscription.status !== 'active') {
      throw new AppError('conflict', 'The subscription is disabled; enable it (PATCH status active) before redelivering');
    }
    const result = await this.repo.redeliver(caller.workspaceId, subscriptionId, deliveryId, stampOf(caller, this.now()));
    if (!result) throw notFound('Delivery');
    return result.delivery;
  }

  private async checkUrl(url: string): Promise<void> {
    const checked = await checkTarget(url, this.deps.config.webhooks.allowPrivateTargets);
    if ('refused' in checked) throw invalidField('/url', checked.refused);
  }

  private now(): string {
    return this.deps.clock().toISOString();
  }
}
