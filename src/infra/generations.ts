import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { redisKeys } from './redis-keys.js';

/**
 * The graph generation of each workspace: a Redis value replaced after every committed change to that
 * workspace's playbooks, versions, nodes, links or annotations. Cached retrieval answers and their ETags are
 * keyed by it, so a change made through any process is seen by the next retrieval on every process.
 * Generations are random rather than a counter, so a Redis that lost its data can never bring an old
 * generation (and with it a stale cached answer) back.
 */
export class GraphGenerations {
  constructor(
    private readonly redis: Redis,
    private readonly logger: Logger,
  ) {}

  /** Call after the change has committed. */
  async bump(workspaceId: string): Promise<void> {
    try {
      await this.redis.set(redisKeys.graphGeneration(workspaceId), randomUUID());
    } catch (err) {
      // The write itself succeeded; without the bump a cached answer could outlive it, so the caller must know.
      this.logger.error({ err, workspaceId }, 'could not bump the graph generation after a committed change');
      throw err;
    }
  }
}
