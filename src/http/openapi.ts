import type { TObject, TSchema } from '@sinclair/typebox';
import { errorCodes } from '../errors.js';
import { maxIdempotencyKeyLength } from '../gate/idempotency.js';
import { Problem } from './common-schemas.js';
import type { AnyRoute } from './route.js';

/** Drops TypeBox's symbol keys and our defaults-free copies: what remains is plain JSON Schema 2020-12. */
const plain = (schema: TSchema): Record<string, unknown> => JSON.parse(JSON.stringify(schema));

function parameters(schema: TObject | undefined, where: 'path' | 'query') {
  if (!schema) return [];
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties).map(([name, prop]) => {
    const { description, ...rest } = plain(prop as TSchema);
    const repeatable = rest.type === 'array';
    return {
      name,
      in: where,
      // A parameter with a default may be left out (validation fills it in), so clients must not be made to send it.
      required: where === 'path' || (required.has(name) && !('default' in rest)),
      ...(description ? { description } : {}),
      schema: rest,
      ...(repeatable ? { style: 'form', explode: true } : {}),
    };
  });
}

const idempotencyKey = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes a retry safe: the same key with the same request within 24 hours replays the first successful answer ' +
    '(header Idempotent-Replayed: true) and writes nothing; the same key with another request is 422; while the first still runs, 409.',
  schema: { type: 'string', minLength: 1, maxLength: maxIdempotencyKeyLength },
};

const commonErrors: Record<number, string> = {
  400: 'Invalid input (problem+json, with `errors` per field)',
  413: 'Body larger than 1 MiB',
  415: 'Body that is not application/json',
  422: 'Idempotency-Key reused with another request',
  429: 'Monthly retrieval quota or per-key rate limit exceeded (with Retry-After)',
  431: 'Request line or headers too large',
  401: 'Missing, unknown or revoked key',
  403: 'Role too low, or a key of the wrong kind',
  404: 'Not found, or not visible to the caller',
  503: 'Neo4j or Redis unreachable (with Retry-After)',
};

const conditionalHeaders = {
  ETag: { description: 'Strong validator of the body; send it back as If-None-Match', schema: { type: 'string' } },
  'Cache-Control': { description: 'private, no-cache', schema: { type: 'string' } },
};

/** The OpenAPI 3.1 document, built from the same route specs (and JSON Schemas) the router validates with. */
export function buildOpenApi(routes: AnyRoute[], info: { version: string; description: string }) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const statuses = new Set<number>(route.access.kind === 'public' ? [] : route.access.kind === 'principal' ? [401, 503] : [401, 403, 404, 503]);
    if (route.params || route.query || route.body) statuses.add(400);
    if (route.body) for (const s of [413, 415]) statuses.add(s);
    if (route.method === 'post') for (const s of [409, 422]) statuses.add(s);
    if (route.query) statuses.add(431);
    // The per-key rate limit, when a deployment turns it on, applies to every route a key reaches.
    if (route.access.kind === 'workspace') statuses.add(429);
    for (const s of route.errors ?? []) statuses.add(s);
    const responses: Record<string, unknown> = {};
    for (const [status, spec] of Object.entries(route.responses)) {
      responses[status] = {
        description: spec.description,
        ...(spec.headers ? { headers: Object.fromEntries(Object.entries(spec.headers).map(([h, d]) => [h, { description: d, schema: { type: 'string' } }])) } : {}),
        ...(spec.schema || spec.otherTypes
          ? {
              content: {
                ...(spec.schema ? { 'application/json': { schema: plain(spec.schema) } } : {}),
                ...Object.fromEntries(Object.entries(spec.otherTypes ?? {}).map(([type, description]) => [type, { schema: { type: 'string', description } }])),
              },
            }
          : {}),
      };
    }
    if (route.cache) {
      const ok = responses[200] as { headers?: Record<string, unknown> };
      ok.headers = { ...conditionalHeaders, ...ok.headers };
      responses[304] ??= { description: 'Not modified: the If-None-Match ETag is current', headers: conditionalHeaders };
    }
    for (const status of [...statuses].sort()) {
      responses[status] ??= {
        description: commonErrors[status] ?? Object.values(errorCodes).find((c) => c.status === status)?.title ?? 'Error',
        content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
      };
    }
    (paths[path] ??= {})[route.method] = {
      operationId: route.operationId,
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      tags: [route.tag],
      ...(route.access.kind === 'public'
        ? { security: [] }
        : route.access.kind === 'operator'
          ? { security: route.access.analyst ? [{ operatorToken: [] }, { analystToken: [] }] : [{ operatorToken: [] }] }
          : {}),
      parameters: [...parameters(route.params, 'path'), ...parameters(route.query, 'query'), ...(route.method === 'post' ? [idempotencyKey] : [])],
      // A body whose every field is optional may be left out altogether (it reads as {}).
      ...(route.body ? { requestBody: { required: ((route.body as TObject).required ?? []).length > 0, content: { 'application/json': { schema: plain(route.body) } } } } : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Playbooks and Context API', version: info.version, description: info.description },
    servers: [{ url: '/' }],
    security: [{ apiKey: [] }],
    components: {
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'A user key (pk_user_…) or an agent key (pk_…)' },
        operatorToken: { type: 'http', scheme: 'bearer', description: 'The ADMIN_TOKEN of the deployment' },
        analystToken: { type: 'http', scheme: 'bearer', description: 'The ANALYST_TOKEN of the deployment (read-only Cypher only)' },
      },
      schemas: { Problem: plain(Problem) },
    },
    paths,
  };
}
