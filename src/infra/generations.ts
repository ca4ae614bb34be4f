import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { redisKeys } from './redis-keys.js';

/**
 * The graph generation of each workspace: a Redis counter bumped after every committed change to that
 * workspace's playbooks, versions, nodes, links or annotations. Cached retrieval answers are keyed by it,
 * so a change made through any process is seen by the next retrieval on every process.
 */
export class GraphGenerations {
  constructor(
    private readonly redis: Redis,
    private readonly logger: Logger,
  ) {}

  /** Call after the change has committed. */
  async bump(workspaceId: string): Promise<void> {
    try {
      await this.redis.incr(redisKeys.graphGeneration(workspaceId));
    } catch (err) {
      // The write itself succeeded; without the bump a cached answer could outlive it, so say so loudly.
      this.logger.error({ err, workspaceId }, 'could not bump the graph generation after a committed change');
      throw err;
    }
  }
}
