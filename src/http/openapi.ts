import { isDeepStrictEqual } from 'node:util';
import type { TObject, TSchema } from '@sinclair/typebox';
import { errorCodes } from '../errors.js';
import { maxIdempotencyKeyLength } from '../gate/idempotency.js';
import { Problem, nameOf } from '../api/common-schemas.js';
import { type AnyOperation, isIdempotent } from '../api/operation.js';

type JsonObject = Record<string, unknown>;

/** Drops TypeBox's symbol keys: what remains is plain JSON Schema 2020-12. */
const plain = (schema: TSchema): JsonObject => JSON.parse(JSON.stringify(schema));

/** Keywords that document a value without restricting it: a use of a named schema may change them and still refer to it. */
const annotations = new Set(['description', 'default', 'deprecated', 'title', 'examples']);
const restrictions = (schema: JsonObject) => Object.fromEntries(Object.entries(schema).filter(([key]) => !annotations.has(key)));

/**
 * Writes schemas into the document: plain JSON Schema, where each use of a schema given a name (`named`, in
 * common-schemas.ts) becomes a $ref to its one entry under components.schemas, with beside it the annotations
 * the use changes. A use that restricts more or less than the named schema (a copy with another maxLength) is
 * written out whole.
 */
class SchemaWriter {
  private readonly components: Record<string, JsonObject> = {};

  write(schema: TSchema): JsonObject {
    return this.visit(schema) as JsonObject;
  }

  private visit(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((item) => this.visit(item));
    if (value === null || typeof value !== 'object') return value;
    const named = nameOf(value);
    if (named) {
      const use = plain(value as TSchema);
      const original = plain(named.original);
      if (isDeepStrictEqual(restrictions(use), restrictions(original))) {
        this.define(named.name, named.original);
        const changed = Object.entries(use).filter(([key, v]) => annotations.has(key) && !isDeepStrictEqual(v, original[key]));
        return { $ref: `#/components/schemas/${named.name}`, ...Object.fromEntries(changed) };
      }
    }
    return this.fields(value);
  }

  private fields(value: object): JsonObject {
    // Object.entries leaves TypeBox's symbol keys out; undefined values are left out as JSON would.
    return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined).map(([key, v]) => [key, this.visit(v)]));
  }

  private define(name: string, original: TSchema): void {
    if (name in this.components) return;
    this.components[name] = {}; // taken before its fields are written, so a schema that contains itself refers to itself
    this.components[name] = this.fields(original);
  }

  /** components.schemas, by name. */
  schemas(): Record<string, JsonObject> {
    return Object.fromEntries(Object.entries(this.components).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }
}

function parameters(writer: SchemaWriter, schema: TObject | undefined, where: 'path' | 'query') {
  if (!schema) return [];
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties).map(([name, prop]) => {
    // What the parameter is and whether it has a default are read from the schema itself, not from a $ref.
    const { description, ...rest } = plain(prop as TSchema);
    const { description: _, ...written } = writer.write(prop as TSchema);
    const repeatable = rest.type === 'array';
    return {
      name,
      in: where,
      // A parameter with a default may be left out (validation fills it in), so clients must not be made to send it.
      required: where === 'path' || (required.has(name) && !('default' in rest)),
      ...(description ? { description } : {}),
      schema: written,
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
export function buildOpenApi(routes: AnyOperation[], info: { version: string; description: string }) {
  const paths: Record<string, Record<string, unknown>> = {};
  const writer = new SchemaWriter();
  const problem = writer.write(Problem);
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
                ...(spec.schema ? { 'application/json': { schema: writer.write(spec.schema) } } : {}),
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
        content: { 'application/problem+json': { schema: problem } },
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
      parameters: [...parameters(writer, route.params, 'path'), ...parameters(writer, route.query, 'query'), ...(route.method === 'post' ? [idempotencyKey] : [])],
      // A body whose every field is optional may be left out altogether (it reads as {}).
      ...(route.body ? { requestBody: requestBody(writer, route.body) } : {}),
      responses,
      // What a client's retry policy needs (the SDK generates its own from these).
      'x-idempotent': isIdempotent(route),
      ...(route.metered ? { 'x-metered': true } : {}),
      ...(route.cache ? { 'x-conditional': true } : {}),
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
      schemas: writer.schemas(),
    },
    paths,
  };
}

/**
 * A request body as clients see it: a field with a default may be left out (validation fills it in), so it is not
 * listed as required, as for query parameters; a body with no required field may be left out altogether.
 */
function requestBody(writer: SchemaWriter, body: TSchema) {
  const object = body as TObject;
  const required = (object.required ?? []).filter((name) => !('default' in (object.properties?.[name] ?? {})));
  const schema = object.type === 'object' && object.required ? { ...object, required } : body;
  if (schema !== body && required.length === 0) delete (schema as { required?: string[] }).required;
  return { required: required.length > 0, content: { 'application/json': { schema: writer.write(schema as TSchema) } } };
}
