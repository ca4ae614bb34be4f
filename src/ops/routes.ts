import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Type } from '@sinclair/typebox';
import { AppError } from '../errors.js';
import { type AnyOperation, defineOperation } from '../api/operation.js';
import type { RequestGate } from '../gate/gate.js';
import type { Lifecycle } from '../infra/lifecycle.js';
import type { Infra } from '../service-deps.js';

const require = createRequire(import.meta.url);
const swaggerDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const swaggerAssets: Record<string, { file: string; type: string }> = {
  'swagger-ui.css': { file: 'swagger-ui.css', type: 'text/css' },
  'swagger-ui-bundle.js': { file: 'swagger-ui-bundle.js', type: 'application/javascript' },
};

const docsPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Playbooks and Context API</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="ui"></div><script src="/docs/assets/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: '/api/v1/openapi.json', dom_id: '#ui' });</script></body></html>`;

/** Health, readiness, metrics and the API documentation: no API key needed. */
export function opsRoutes(services: Pick<Infra, 'config' | 'graph' | 'redis' | 'metrics'> & { gate: Pick<RequestGate, 'owesSignals'>; lifecycle: Lifecycle }, openApi: () => object): AnyOperation[] {
  return [
    defineOperation({
      method: 'get', path: '/healthz', operationId: 'health', tag: 'Operations', access: { kind: 'public' },
      summary: 'The process is up',
      responses: { 200: { description: 'Up', schema: Type.Object({ status: Type.Literal('ok') }) } },
      handler: async ({ ctx }) => {
        ctx.body = { status: 'ok' };
      },
    }),
    defineOperation({
      method: 'get', path: '/readyz', operationId: 'ready', tag: 'Operations', access: { kind: 'public' },
      summary: 'Neo4j and Redis are reachable, Redis has every change’s signal, and the process is not shutting down',
      description: 'While a change committed during a Redis outage still owes Redis its signal (a new graph generation or auth epoch), the process is not ready; nor is it from the moment it is asked to stop (it drains: requests in flight finish).',
      responses: { 200: { description: 'Ready', schema: Type.Object({ status: Type.Literal('ready'), neo4j: Type.Literal('up'), redis: Type.Literal('up') }) } },
      errors: [503],
      handler: async ({ ctx }) => {
        if (services.lifecycle.draining) throw new AppError('service_unavailable', 'This process is shutting down', { headers: { 'Retry-After': '1' } });
        const [neo4j, redis] = await Promise.allSettled([services.graph.ping(), services.redis.ping()]);
        if (neo4j.status === 'rejected' || redis.status === 'rejected') {
          const down = [neo4j.status === 'rejected' && 'Neo4j', redis.status === 'rejected' && 'Redis'].filter(Boolean).join(' and ');
          throw new AppError('service_unavailable', `${down} cannot be reached`, { headers: { 'Retry-After': '5' } });
        }
        if (services.gate.owesSignals) {
          throw new AppError('service_unavailable', 'Changes made while Redis was unreachable are not signalled yet', { headers: { 'Retry-After': '2' } });
        }
        ctx.body = { status: 'ready', neo4j: 'up', redis: 'up' };
      },
    }),
    defineOperation({
      method: 'get', path: '/metrics', operationId: 'metrics', tag: 'Operations', access: { kind: 'public' },
      summary: 'Prometheus metrics (bearer METRICS_TOKEN when configured)',
      responses: { 200: { description: 'Prometheus text format' } },
      errors: [401],
      handler: async ({ ctx }) => {
        const token = services.config.metricsToken;
        if (token && ctx.get('authorization') !== `Bearer ${token}`) throw new AppError('unauthorized', 'The metrics token is required');
        ctx.type = services.metrics.registry.contentType;
        ctx.body = await services.metrics.registry.metrics();
      },
    }),
    defineOperation({
      method: 'get', path: '/api/v1/openapi.json', operationId: 'openApi', tag: 'Operations', access: { kind: 'public' },
      summary: 'This OpenAPI 3.1 document',
      responses: { 200: { description: 'OpenAPI document' } },
      handler: async ({ ctx }) => {
        ctx.body = openApi();
      },
    }),
    defineOperation({
      method: 'get', path: '/docs', operationId: 'docs', tag: 'Operations', access: { kind: 'public' },
      summary: 'Browsable API documentation',
      responses: { 200: { description: 'HTML page' } },
      handler: async ({ ctx }) => {
        ctx.type = 'text/html';
        ctx.body = docsPage;
      },
    }),
    defineOperation({
      method: 'get', path: '/docs/assets/:asset', operationId: 'docsAsset', tag: 'Operations', access: { kind: 'public' },
      summary: 'Static files of the documentation page',
      params: Type.Object({ asset: Type.String() }),
      responses: { 200: { description: 'Static file' } },
      errors: [404],
      handler: async ({ ctx, params }) => {
        const asset = swaggerAssets[params.asset];
        if (!asset) throw new AppError('not_found', 'No such file');
        ctx.type = asset.type;
        ctx.set('Cache-Control', 'public, max-age=86400');
        ctx.body = readFileSync(path.join(swaggerDir, asset.file));
      },
    }),
  ];
}
