import Koa from 'koa';
import { adminRoutes } from './admin/routes.js';
import { agentRoutes } from './agents/routes.js';
import { analystRoutes } from './analyst/routes.js';
import { annotationRoutes } from './annotations/routes.js';
import { auditRoutes } from './audit/routes.js';
import { faviconRoutes } from './console/favicon.js';
import { withReadScope } from './infra/read-scope.js';
import { consoleRoutes } from './console/routes.js';
import { downloadRoutes } from './downloads/routes.js';
import { feedbackRoutes } from './feedback/routes.js';
import { graphRoutes } from './graph/routes.js';
import { errorHandler } from './http/error-handler.js';
import { observe } from './http/observability.js';
import { buildOpenApi } from './http/openapi.js';
import type { AnyOperation } from './api/operation.js';
import { buildRouter } from './http/router.js';
import { mcpChallenge, protectedResourceRoutes } from './mcp/protected-resource.js';
import { mcpHostGuard, mcpRoutes } from './mcp/routes.js';
import { nodeRoutes } from './nodes/routes.js';
import { oauthRoutes, oauthServer } from './oauth/routes.js';
import { opsRoutes } from './ops/routes.js';
import { playbookRoutes } from './playbooks/routes.js';
import { reportRoutes } from './reports/routes.js';
import { retrievalRoutes } from './retrieval/routes.js';
import { embeddingRoutes } from './embeddings/routes.js';
import { transferRoutes } from './transfer/routes.js';
import type { AppServices } from './services.js';
import { webhookRoutes } from './webhooks/routes.js';
import { workspaceRoutes } from './workspaces/routes.js';

/** Every endpoint of the API, in the order the documentation lists them. */
export function allRoutes(s: AppServices): AnyOperation[] {
  let document: object | undefined;
  const operations: AnyOperation[] = [
    ...adminRoutes(s),
    ...workspaceRoutes(s),
    ...playbookRoutes(s),
    ...agentRoutes(s),
    ...nodeRoutes(s),
    ...graphRoutes(s),
    ...retrievalRoutes(s),
    ...embeddingRoutes(s),
    ...annotationRoutes(s),
    ...feedbackRoutes(s),
    ...reportRoutes(s),
    ...transferRoutes(s),
    ...analystRoutes(s),
    ...auditRoutes(s),
    ...webhookRoutes(s),
  ];
  const api: AnyOperation[] = [
    ...operations,
    ...mcpRoutes(s, operations),
    ...protectedResourceRoutes(s),
    ...oauthRoutes(s),
    ...downloadRoutes(s),
  ];
  const ops = opsRoutes(s, () => (document ??= buildOpenApi([...api, ...ops], {
    version: '1.0.0',
    description: 'Version-controlled playbooks, a knowledge graph of context nodes, and the agents that retrieve them. Errors are RFC 9457 problem+json.',
  })));
  // The console's pages and files are served like /docs but are no part of the API's document.
  return [...ops, ...api, ...consoleRoutes({ imageOrigins: s.config.consoleImageOrigins }), ...faviconRoutes()];
}

/** The Koa application: middleware order and routers, nothing else. */
export function createApp(s: AppServices, options: { validateResponses?: boolean } = {}): Koa {
  const app = new Koa({ proxy: false });
  app.use(observe(s.logger, s.metrics));
  // A draining process closes each connection after its answer, so clients reconnect (through the balancer) elsewhere.
  // Each request reads after the workspace's latest writes (src/infra/read-scope.ts).
  app.use(async (ctx, next) => {
    if (s.lifecycle.draining) ctx.set('Connection', 'close');
    await withReadScope(next);
  });
  app.use(errorHandler(s.logger));
  app.use(mcpHostGuard(s.config.mcp));
  app.use(mcpChallenge(s));
  app.use(oauthServer(s));
  for (const middleware of buildRouter(allRoutes(s), {
    gate: s.gate,
    idempotency: s.idempotency,
    responseCache: s.responseCache,
    adminToken: s.config.adminToken,
    analystToken: s.config.analystToken,
    validateResponses: options.validateResponses,
  })) {
    app.use(middleware);
  }
  // Errors are rendered by errorHandler; Koa's own printer would only duplicate them.
  app.silent = true;
  return app;
}
