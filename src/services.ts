import { AdminService } from './admin/service.js';
import { AgentService } from './agents/service.js';
import { AnalystService } from './analyst/service.js';
import { AnnotationService } from './annotations/service.js';
import { AuditService } from './audit/service.js';
import { EmbeddingService } from './embeddings/service.js';
import { FeedbackService } from './feedback/service.js';
import { RequestGate } from './gate/gate.js';
import { IdempotencyStore } from './gate/idempotency.js';
import { ResponseCache } from './answer-cache/response-cache.js';
import { Metrics } from './http/observability.js';
import { systemClock } from './infra/ids.js';
import { Lifecycle } from './infra/lifecycle.js';
import { GraphService } from './graph/service.js';
import { NodeImportService } from './nodes/import.js';
import { NodeService } from './nodes/service.js';
import { bearerTokenFinder } from './oauth/redis-adapter.js';
import { OAuthService } from './oauth/service.js';
import { PlaybookService } from './playbooks/service.js';
import { ReportService } from './reports/service.js';
import { ContextQueryService } from './retrieval/query-service.js';
import { RetrievalService } from './retrieval/service.js';
import type { Infra } from './service-deps.js';
import { TransferService } from './transfer/service.js';
import { WebhookService } from './webhooks/service.js';
import { WorkspaceService } from './workspaces/service.js';

export interface AppServices extends Infra {
  gate: RequestGate;
  idempotency: IdempotencyStore;
  /** Ready-made answers keyed by graph generation: bundles, manifests and cacheable reads share it. */
  responseCache: ResponseCache;
  admin: AdminService;
  workspaces: WorkspaceService;
  playbooks: PlaybookService;
  agents: AgentService;
  nodes: NodeService;
  graphView: GraphService;
  nodeImport: NodeImportService;
  retrieval: RetrievalService;
  annotations: AnnotationService;
  feedback: FeedbackService;
  analyst: AnalystService;
  reports: ReportService;
  audit: AuditService;
  webhooks: WebhookService;
  transfer: TransferService;
  oauth: OAuthService;
  /** The embeddings of context nodes: provider, background embedder, nearest nodes to a vector. */
  embeddings: EmbeddingService;
  /** POST {ws}/context/query: context by the words and meaning of a question, and the links from it. */
  contextQuery: ContextQueryService;
  lifecycle: Lifecycle;
}

/** Wires the component services to the process's connections and to one request gate. */
export function createServices(infra: Omit<Infra, 'clock' | 'metrics'> & Partial<Pick<Infra, 'clock' | 'metrics'>>): AppServices {
  const base: Infra = { ...infra, clock: infra.clock ?? systemClock, metrics: infra.metrics ?? new Metrics() };
  // The audit log needs no gate; the gate tells it of quota crossings (audit events, hence webhooks).
  const audit = new AuditService(base);
  const gate = new RequestGate({
    redis: base.redis,
    graph: base.graph,
    logger: base.logger,
    clock: base.clock,
    plans: base.config.plans,
    rateLimitPerKeyPerMinute: base.config.rateLimitPerKeyPerMinute,
    onQuotaCrossed: (crossing) => audit.recordQuotaCrossing(crossing),
    findBearerToken: bearerTokenFinder(base.redis, base.clock),
  });
  const deps = { ...base, gate };
  const agents = new AgentService(deps);
  const embeddings = new EmbeddingService(deps);
  const playbooks = new PlaybookService(deps);
  return {
    ...deps,
    idempotency: new IdempotencyStore(base.redis),
    responseCache: new ResponseCache(base.config.bundleCache),
    admin: new AdminService(deps),
    workspaces: new WorkspaceService(deps),
    playbooks,
    agents,
    nodes: new NodeService(deps),
    graphView: new GraphService(deps),
    nodeImport: new NodeImportService(deps),
    retrieval: new RetrievalService(deps),
    annotations: new AnnotationService(deps),
    feedback: new FeedbackService(deps),
    analyst: new AnalystService(deps),
    reports: new ReportService(deps),
    audit,
    webhooks: new WebhookService(deps),
    transfer: new TransferService(deps),
    oauth: new OAuthService({ ...deps, agents }),
    lifecycle: new Lifecycle(),
    embeddings,
    contextQuery: new ContextQueryService({ graph: base.graph, embeddings, playbookIdOf: (caller, ref) => playbooks.idOf(caller, ref) }),
  };
}
