import { type Job, Queue, Worker } from 'bullmq';
import type { Logger } from 'pino';
import { storedActor } from '../audit/recorder.js';
import type { Config } from '../config.js';
import type { Clock } from '../infra/ids.js';
import type { GraphExecutor } from '../infra/neo4j.js';
import { createRedis, type RedisClient, type RedisTarget } from '../infra/redis.js';
import { type NextDelivery, WebhookRepository } from './repository.js';
import { SecretBox } from '../infra/secret-box.js';
import { sendWebhook } from './sender.js';

/** The queue's keys share one hash tag, so the queue also runs on a Redis cluster. */
const queueName = 'webhooks';
const prefix = '{webhooks}';

/** How many pending deliveries of one subscription a drain reads at once. */
const drainBatch = 25;

interface DrainJob {
  workspaceId: string;
  subscriptionId: string;
}

/** The JSON body receivers get: the audit event, which never holds secrets. */
export function payloadOf(event: NextDelivery['event']): string {
  const parse = (text: string | null | undefined) => (text == null ? null : JSON.parse(text));
  return JSON.stringify({
    type: event.action,
    timestamp: event.at,
    data: {
      eventId: event.id,
      workspaceId: event.workspaceId,
      ...storedActor(event),
      targetIds: event.targetIds ?? [],
      requestId: event.requestId,
      before: parse(event.before),
      after: parse(event.after),
    },
  });
}

/**
 * Moves the webhook outbox (written in each change's transaction) to a BullMQ queue on the project's Redis and
 * delivers it. One job per subscription drains its pending deliveries in order (`seq`); a job id per subscription
 * means one drain at a time across every process, which keeps each receiver's order. A failed attempt throws, so
 * BullMQ retries the job with exponential backoff; after `maxAttempts` failures of the same delivery the
 * subscription is disabled with the reason. The relay re-sweeps every `relayIntervalMs`: nothing is lost when
 * Redis was down at commit time, or a process stopped mid-way (at least once).
 */
export class WebhookDispatcher {
  private readonly repo: WebhookRepository;
  private readonly secrets: SecretBox;
  private queue?: Queue<DrainJob>;
  private worker?: Worker<DrainJob>;
  private connections: RedisClient[] = [];
  private timer?: NodeJS.Timeout;
  private relaying?: Promise<void>;
  /** Deliveries sent successfully by this process (the benchmark reads it). */
  delivered = 0;

  constructor(
    private readonly deps: { graph: GraphExecutor; redis: RedisTarget; config: Config; logger: Logger; clock: Clock },
  ) {
    this.repo = new WebhookRepository(deps.graph);
    this.secrets = SecretBox.fromConfig(deps.config);
  }

  start(): void {
    const { webhooks } = this.deps.config;
    // BullMQ's own connections (blocking commands; it requires maxRetriesPerRequest null), apart from the gate's.
    const connect = () => {
      const redis = createRedis(this.deps.redis, { lazyConnect: false, maxRetriesPerRequest: null, enableOfflineQueue: true, commandTimeout: undefined });
      redis.on('error', (err) => this.deps.logger.debug({ err: err.message }, 'webhook queue redis error'));
      this.connections.push(redis);
      return redis;
    };
    this.queue = new Queue<DrainJob>(queueName, { connection: connect(), prefix });
    this.queue.on('error', (err) => this.deps.logger.debug({ err: err.message }, 'webhook queue error'));
    this.worker = new Worker<DrainJob>(queueName, (job) => this.drain(job), {
      connection: connect(),
      prefix,
      concurrency: 8,
      // A drain holds a delivery for at most the HTTP timeout; a process that died mid-way gives its job back soon.
      lockDuration: Math.max(30_000, webhooks.timeoutMs * 3),
    });
    this.worker.on('error', (err) => this.deps.logger.debug({ err: err.message }, 'webhook worker error'));
    this.timer = setInterval(() => void this.relay(), webhooks.relayIntervalMs);
    this.timer.unref();
    void this.relay();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.relaying;
    await this.worker?.close().catch(() => undefined);
    await this.queue?.close().catch(() => undefined);
    await Promise.all(this.connections.map((c) => c.quit().catch(() => c.disconnect())));
    this.connections = [];
  }

  /** Moves what waits in the outbox to the queue: one drain job per subscription (already queued: no change). */
  relay(): Promise<void> {
    this.relaying ??= (async () => {
      try {
        const due = await this.repo.due(1_000);
        const { retryBaseMs, maxAttempts } = this.deps.config.webhooks;
        for (const { workspaceId, subscriptionId } of due) {
          await this.queue!.add('drain', { workspaceId, subscriptionId }, {
            jobId: subscriptionId,
            attempts: maxAttempts,
            backoff: { type: 'exponential', delay: retryBaseMs },
            removeOnComplete: true,
            removeOnFail: true,
          });
        }
      } catch (err) {
        this.deps.logger.debug({ err: (err as Error).message }, 'webhook relay will try again');
      } finally {
        this.relaying = undefined;
      }
    })();
    return this.relaying;
  }

  /**
   * Sends the subscription's pending deliveries in order until none is left or one fails. They are read a batch at
   * a time and the delivered ones recorded together, so a busy subscription costs Neo4j two statements a batch
   * rather than two a delivery.
   */
  private async drain(job: Job<DrainJob>): Promise<void> {
    const { workspaceId, subscriptionId } = job.data;
    const { timeoutMs, allowPrivateTargets, maxAttempts } = this.deps.config.webhooks;
    for (;;) {
      const batch = await this.repo.next(workspaceId, subscriptionId, drainBatch);
      if (!batch.length) return;
      const delivered: { deliveryId: string; statusCode: number | null }[] = [];
      const recordDelivered = () => this.repo.recordDelivered(workspaceId, subscriptionId, delivered, this.deps.clock().toISOString());
      for (const next of batch) {
        const result = await sendWebhook(
          { url: next.url, secret: this.secrets.open(next.secret) },
          { id: next.delivery.id, body: payloadOf(next.event), at: this.deps.clock() },
          { timeoutMs, allowPrivate: allowPrivateTargets },
        );
        if (result.ok) {
          delivered.push({ deliveryId: next.delivery.id, statusCode: result.statusCode });
          this.delivered += 1;
          continue;
        }
        await recordDelivered();
        const now = this.deps.clock().toISOString();
        const giveUp = next.delivery.attempts + 1 >= maxAttempts;
        const since = next.delivery.firstFailedAt ?? now;
        await this.repo.recordAttempt({
          workspaceId, subscriptionId, deliveryId: next.delivery.id, statusCode: result.statusCode, error: result.error, giveUp,
          reason: giveUp ? `Deliveries failed ${maxAttempts} times since ${since} (last: ${result.error}); re-enable it once the receiver works` : null,
          now,
        });
        if (giveUp) return;
        // BullMQ retries the job after its backoff; the same delivery is still first in line.
        throw new Error(`delivery ${next.delivery.id} failed: ${result.error}`);
      }
      await recordDelivered();
    }
  }
}
