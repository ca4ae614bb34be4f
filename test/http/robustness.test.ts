import { expect } from 'chai';
import pLimit from 'p-limit';
import { type Reply, createUser, createWorkspace, problem, request } from '../support/api.js';
import { createAgent } from '../support/agents.js';
import { adminToken } from '../support/harness.js';
import { createNode, link } from '../support/nodes.js';
import { createPlaybook } from '../support/playbooks.js';

/**
 * Every operation the OpenAPI document lists is sent input that is wrong in one place at a time (a path
 * parameter, a query parameter, the body, one body field): whatever the input, the answer is never a 5xx,
 * and every error is problem+json. The inputs are derived from each operation's own schemas, so a route is
 * covered as soon as it is documented.
 */

type Schema = Record<string, any>;

interface Operation {
  method: string;
  path: string;
  operationId: string;
  pathParams: string[];
  query: Record<string, Schema>;
  requiredQuery: string[];
  body?: Schema;
}

interface Probe {
  op: Operation;
  path?: Record<string, string>;
  query: Record<string, string | string[]>;
  body?: unknown;
  /** Sent as the body as it is, with Content-Type application/json. */
  raw?: string;
}

/** Values of the wrong type, or of the right type at or past an edge, for a body field. */
function oddValues(schema: Schema): unknown[] {
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  const common = [null, {}, [], 'x'.repeat(70_000), '\u0000', '\ud800', '[[a|b]]', -1, 1.5, 1e308, true];
  switch (type) {
    case 'string':
      return [...common, '', ' ', 'é'.repeat(schema.maxLength ?? 300), ...(schema.maxLength ? ['y'.repeat(schema.maxLength + 1)] : []), '9999-99-99T99:99:99Z', '2026-02-30T00:00:00Z'];
    case 'integer':
    case 'number':
      return [...common, 0, 2 ** 53, -(2 ** 63), Number.MAX_SAFE_INTEGER + 2, '1', ...(schema.maximum !== undefined ? [schema.maximum + 1] : [])];
    case 'array':
      return [...common, [null], [[]], Array.from({ length: 2_000 }, (_, i) => `v${i}`), [{}]];
    default:
      return common;
  }
}

/** Query-string values, sent as they are: %XX escapes stand for bytes (an encoded NUL, a lone surrogate's bytes). */
const oddQueryValues = ['', 'x', '-1', '1.5', '1e309', '99999999999999999999999', '%00', '%ED%A0%80', '[]', 'null', 'x'.repeat(5_000), '2026-13-45T00:00:00Z'];

/** Path-parameter values that are not ids of anything, or not ids at all. */
const oddPathValues = ['x', '%00', '%ED%A0%80', '%2F', 'x'.repeat(2_000), '%F0%9F%98%80', 'pb_00000000000000000000000000', "'; MATCH (n) DETACH DELETE n //"];

/** Bodies that are not the JSON object every body schema asks for. */
const oddBodies = ['', '{', '[]', 'null', '"x"', '1', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{}}}', `{"a":${'['.repeat(5_000)}${']'.repeat(5_000)}}`];

/**
 * Operations whose input the generator cannot make valid from the schema alone, so the sweep's base input is
 * refused by the service (each field is still varied one at a time).
 */
const basesRefusedByDesign = new Set([
  'createPlaybookVersion', // content or basedOnVersionId: one of the two, checked by the service
  'queryContext', // q or vector: one of the two, checked by the service
  'createNodeLink', // the fixture's link is already there: 409
  'runCypher', // the query is Cypher, which a schema cannot make valid: 400 invalid_cypher
  'redeliverWebhook', // the fixture's receiver never answers, so its subscription is soon disabled: 409
  'importWorkspace', // the sweep's workspace has playbooks and nodes; an export goes into an empty workspace only: 409
  'mcp', // the sweep sends no Accept: application/json, text/event-stream, which Streamable HTTP requires: 406
  'getConsentRequest', // the sweep has no authorization request waiting for consent: 404
  'approveConsentRequest', // likewise: 404
  'denyConsentRequest', // likewise: 404
  'revokeAgentGrant', // the sweep's agent has no grant: 404
]);

const encode = (v: string) => (/%[0-9A-F]{2}/.test(v) ? v : encodeURIComponent(v));

function resolveRef(doc: any, schema: Schema | undefined): Schema {
  let s = schema;
  while (s?.$ref) s = s.$ref.split('/').slice(1).reduce((o: any, k: string) => o[k], doc);
  return s ?? {};
}

function operationsOf(doc: any): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const parameters = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p: any) => resolveRef(doc, p));
      const query: Record<string, Schema> = {};
      for (const p of parameters.filter((p: any) => p.in === 'query')) query[p.name] = resolveRef(doc, p.schema);
      const body = op.requestBody?.content?.['application/json']?.schema;
      ops.push({
        method,
        path,
        operationId: op.operationId,
        pathParams: parameters.filter((p: any) => p.in === 'path').map((p: any) => p.name),
        query,
        requiredQuery: parameters.filter((p: any) => p.in === 'query' && p.required).map((p: any) => p.name),
        body: body ? resolveRef(doc, body) : undefined,
      });
    }
  }
  return ops;
}

describe('robustness', function () {
  this.timeout(300_000);

  it('no documented operation answers wrong input with a 5xx, and every error is problem+json', async () => {
    const workspace = await createWorkspace();
    const owner = workspace.owner.key;
    const playbook = await createPlaybook(workspace, owner);
    // Subscribed before the nodes are made, so that a delivery exists (to a port nothing listens on).
    const webhook = await request('POST', workspace.path('/webhooks'), { token: owner, body: { url: 'http://127.0.0.1:9/hook', eventTypes: ['node.created'] } });
    const a = await createNode(workspace, { content: 'See [[b]]' });
    const b = await createNode(workspace, { slug: 'b' });
    const agent = await createAgent(workspace);
    const member = await createUser('Member');
    const linked = await link(workspace, a.id, b.id, 'requires');
    const annotation = await request('POST', workspace.path('/context/annotations'), {
      token: owner,
      body: { targetType: 'context_node', targetId: a.id, title: 't', content: 'c', scopeType: 'workspace_overlay' },
    });
    const feedback = await request('POST', workspace.path('/context/feedback'), {
      token: agent.key,
      body: { targetType: 'playbook', targetId: playbook.id, feedbackType: 'helpful', summary: 'ok' },
    });

    /** A real id under every name an id goes by, so that what a probe gets wrong is the one thing it varies. */
    const ids: Record<string, string> = {
      workspaceId: workspace.workspaceId,
      playbookId: playbook.id,
      versionId: playbook.activeVersion?.id ?? playbook.latestVersion.id,
      nodeId: a.id,
      targetId: b.id,
      linkId: linked.id,
      agentId: agent.agentId,
      keyId: agent.keyId,
      userId: member.userId,
      ownerUserId: member.userId,
      annotationId: annotation.body.id,
      feedbackId: feedback.body.id,
      subscriptionId: webhook.body.id,
      deliveryId: (await request('GET', workspace.path(`/webhooks/${webhook.body.id}/deliveries`), { token: owner })).body.deliveries[0].id,
      asset: 'swagger-ui.css',
    };
    const targetIds: Record<string, string> = { playbook: playbook.id, playbook_version: ids.versionId, context_node: a.id };

    const doc = (await request('GET', '/api/v1/openapi.json')).body;
    const operations = operationsOf(doc);

    let emails = 0;
    /** A value the schema accepts; ids are the fixtures' own. */
    function validValue(schema: Schema, name?: string): any {
      schema = resolveRef(doc, schema);
      if (name && ids[name] && (schema.type === 'string' || !schema.type)) return ids[name];
      if (schema.const !== undefined) return schema.const;
      if (schema.enum) return schema.enum[0];
      if (schema.anyOf || schema.oneOf) return validValue((schema.anyOf ?? schema.oneOf)[0], name);
      switch (Array.isArray(schema.type) ? schema.type[0] : schema.type) {
        case 'object': {
          const properties = Object.keys(schema.properties ?? {});
          const chosen = new Set([...(schema.required ?? []), ...properties.slice(0, schema.minProperties ?? 0)]);
          const out: Record<string, any> = {};
          for (const key of chosen) out[key] = validValue(schema.properties?.[key] ?? {}, key);
          if (out.targetType && out.targetId) out.targetId = targetIds[out.targetType] ?? out.targetId;
          return out;
        }
        case 'array':
          return Array.from({ length: schema.minItems ?? 0 }, () => validValue(schema.items ?? {}));
        case 'integer':
        case 'number':
          return schema.minimum ?? 1;
        case 'boolean':
          return false;
        case 'string':
          if (schema.format === 'email') return `sweep-${emails++}-${workspace.workspaceId}@example.test`;
          if (schema.format === 'date-time') return '2026-01-01T00:00:00Z';
          if (schema.format === 'uri') return 'http://127.0.0.1:9/hook';
          return 'v'.repeat(Math.max(1, schema.minLength ?? 1));
        default:
          return 'v';
      }
    }

    const failures: string[] = [];
    const send = async ({ op, path: pathValues = {}, query, body, raw }: Probe): Promise<Reply> => {
      const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => encode(pathValues[name] ?? ids[name]));
      const qs = Object.entries(query).flatMap(([k, v]) => [v].flat().map((one) => `${encodeURIComponent(k)}=${encode(one)}`)).join('&');
      const url = qs ? `${path}?${qs}` : path;
      const token = op.path.startsWith('/api/v1/admin') ? adminToken : owner;
      const reply = await request(op.method.toUpperCase(), url, raw === undefined ? { token, body } : { token, rawBody: raw, headers: { 'content-type': 'application/json' } });
      let fault = reply.status >= 500 ? 'a 5xx' : undefined;
      if (!fault && reply.status >= 400) {
        try {
          problem(reply, reply.status);
        } catch (err) {
          fault = (err as Error).message;
        }
      }
      if (fault) {
        const sentBody = (raw ?? JSON.stringify(body) ?? '').slice(0, 200);
        failures.push(`${op.operationId}: ${op.method.toUpperCase()} ${url.slice(0, 300)} ${sentBody} -> ${reply.status} (${fault.slice(0, 100)}) ${reply.text.slice(0, 300)}`);
      }
      return reply;
    };

    // The base input of every operation first: it should succeed, so that each probe below is wrong in one place only.
    const refusedBases: string[] = [];
    const probes: Probe[] = [];
    for (const op of operations) {
      const query = Object.fromEntries(op.requiredQuery.map((name) => [name, ids[name] ?? String(validValue(op.query[name]))]));
      const body = op.body ? validValue(op.body) : undefined;
      if (op.method !== 'delete') {
        const reply = await send({ op, query, body });
        if (reply.status >= 300 && !basesRefusedByDesign.has(op.operationId)) refusedBases.push(`${op.operationId}: ${reply.status} ${reply.text.slice(0, 200)}`);
      }
      for (const name of op.pathParams) for (const value of oddPathValues) probes.push({ op, path: { [name]: value }, query, body });
      // A delete with the fixtures' ids would remove them: deletes get wrong path parameters only.
      if (op.method === 'delete') continue;
      for (const name of Object.keys(op.query)) {
        for (const value of oddQueryValues) probes.push({ op, query: { ...query, [name]: value } });
        probes.push({ op, query: { ...query, [name]: [query[name] ?? '1', '2'] } }); // given twice
      }
      if (!op.body) continue;
      for (const raw of oddBodies) probes.push({ op, query, raw });
      for (const [field, fieldSchema] of Object.entries<Schema>(op.body.properties ?? {})) {
        const schema = resolveRef(doc, fieldSchema);
        for (const value of oddValues(schema)) probes.push({ op, query, body: { ...body, [field]: value } });
        for (const [inner, innerSchema] of Object.entries<Schema>(schema.properties ?? {})) {
          for (const value of oddValues(resolveRef(doc, innerSchema))) probes.push({ op, query, body: { ...body, [field]: { ...validValue(schema), [inner]: value } } });
        }
      }
    }
    const limit = pLimit(8);
    await Promise.all(probes.map((probe) => limit(() => send(probe))));

    expect(operations.length).to.be.greaterThan(40);
    expect(probes.length).to.be.greaterThan(2_000);
    expect(refusedBases, refusedBases.join('\n')).to.deep.equal([]);
    expect(failures, failures.join('\n')).to.deep.equal([]);
  });
});
