import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { AdminService } from './admin/service.js';
import { AgentService } from './agents/service.js';
import { AnnotationService } from './annotations/service.js';
import { Authenticator } from './auth/authenticator.js';
import type { Config } from './config.js';
import { FeedbackService } from './feedback/service.js';
import { GraphGenerations } from './infra/generations.js';
import { type Clock, systemClock } from './infra/ids.js';
import type { GraphExecutor } from './infra/neo4j.js';
import { RateLimiter } from './infra/rate-limiter.js';
import { ResponseCache } from './infra/response-cache.js';
import { Metrics } from './http/observability.js';
import { NodeService } from './nodes/service.js';
import { PlaybookService } from './playbooks/service.js';
import { QuotaService } from './quota/service.js';
import { RetrievalService } from './retrieval/service.js';
import { WorkspaceRepository } from './workspaces/repository.js';
import { WorkspaceService } from './workspaces/service.js';

/** The connections a process holds; created by server.ts (or the test fixture) and shared by everything. */
export interface Infra {
  config: Config;
  logger: Logger;
  graph: GraphExecutor;
  redis: Redis;
  clock: Clock;
  metrics: Metrics;
}

export interface AppServices extends Infra {
  authenticator: Authenticator;
  rateLimiter?: RateLimiter;
  generations: GraphGenerations;
  quota: QuotaService;
  admin: AdminService;
  workspaces: WorkspaceService;
  playbooks: PlaybookService;
  agents: AgentService;
  nodes: NodeService;
  retrieval: RetrievalService;
  annotations: AnnotationService;
  feedback: FeedbackService;
  /** Ready-made answers keyed by graph generation: bundles, manifests and cacheable reads share it. */
  responseCache: ResponseCache;
}

export function createServices(infra: Omit<Infra, 'clock' | 'metrics'> & Partial<Pick<Infra, 'clock' | 'metrics'>>): AppServices {
  const base: Infra = { ...infra, clock: infra.clock ?? systemClock, metrics: infra.metrics ?? new Metrics() };
  const authenticator = new Authenticator(base.graph, base.redis, base.logger);
  const generations = new GraphGenerations(base.redis, base.logger);
  const shared = {
    ...base,
    authenticator,
    generations,
    rateLimiter: base.config.rateLimitPerKeyPerMinute ? new RateLimiter(base.redis, base.config.rateLimitPerKeyPerMinute) : undefined,
  };
  const workspaceRepository = new WorkspaceRepository(base.graph);
  const responseCache = new ResponseCache(base.config.bundleCache);
  const quota = new QuotaService(shared, (id) => workspaceRepository.get(id));
  return {
    ...shared,
    quota,
    admin: new AdminService({ ...shared, quota }),
    workspaces: new WorkspaceService(shared, workspaceRepository, quota),
    playbooks: new PlaybookService(shared),
    agents: new AgentService(shared),
    nodes: new NodeService(shared),
    retrieval: new RetrievalService(shared, responseCache),
    responseCache,
    annotations: new AnnotationService(shared),
    feedback: new FeedbackService(shared),
  };
}

/** What a component service may depend on: the infrastructure plus the cross-cutting pieces. */
export type ServiceDeps = Infra & { authenticator: Authenticator; generations: GraphGenerations };
