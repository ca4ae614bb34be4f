import { expect } from 'chai';
import { problem, request } from '../support/api.js';

describe('operations endpoints', () => {
  it('healthz answers without a key', async () => {
    const res = await request('GET', '/healthz');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ status: 'ok' });
  });

  it('readyz reports Neo4j and Redis reachable', async () => {
    const res = await request('GET', '/readyz');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ status: 'ready', neo4j: 'up', redis: 'up' });
  });

  it('every response carries a request id, the caller’s own when it sent one', async () => {
    const mine = await request('GET', '/healthz', { headers: { 'x-request-id': 'trace-123' } });
    expect(mine.headers.get('x-request-id')).to.equal('trace-123');
    const generated = await request('GET', '/healthz');
    expect(generated.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
  });

  it('metrics are Prometheus text labelled by route pattern, not raw URL', async () => {
    await request('GET', '/api/v1/workspaces/ws_doesnotexist');
    const res = await request('GET', '/metrics');
    expect(res.status).to.equal(200);
    expect(res.text).to.include('http_requests_total');
    expect(res.text).to.include('http_request_duration_seconds');
    expect(res.text).to.include('route="/api/v1/workspaces/:workspaceId"');
    expect(res.text).not.to.include('ws_doesnotexist');
  });

  it('an unknown path is a 404 problem', async () => {
    problem(await request('GET', '/api/v1/nothing-here'), 404, 'not_found');
    problem(await request('GET', '/api/v1/workspaces/ws_any/nothing-here'), 404, 'not_found');
    problem(await request('GET', '/api/v1/workspaces/ws_any/playbooks/pb_any/nothing-here'), 404, 'not_found');
    problem(await request('GET', '/api/v1/workspaces//playbooks'), 404, 'not_found');
  });

  it('routes every area of the API: a known path under a workspace is 405 with a wrong method, 401 without a key', async () => {
    const wrong = await request('PUT', '/api/v1/workspaces/ws_any/context/bundle');
    problem(wrong, 405, 'method_not_allowed');
    expect(wrong.headers.get('allow')?.split(', ')).to.have.members(['GET', 'HEAD']);
    for (const path of ['/api/v1/workspaces/ws_any', '/api/v1/workspaces/ws_any/', '/api/v1/workspaces/ws_any/context-nodes', '/api/v1/workspaces/ws_any/context/updates']) {
      problem(await request('GET', path), 401, 'unauthorized');
    }
  });

  it('a known path with the wrong method is a 405 problem with Allow', async () => {
    const res = await request('PUT', '/healthz');
    problem(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).to.include('GET');
  });

  it('answers OPTIONS on a known path with the methods it allows', async () => {
    const res = await request('OPTIONS', '/api/v1/workspaces/ws_any/playbooks');
    expect(res.status).to.equal(200);
    expect(res.text).to.equal('');
    expect(res.headers.get('allow')?.split(', ')).to.have.members(['GET', 'HEAD', 'POST']);
  });

  it('answers OPTIONS on every path of the OpenAPI document with exactly the methods it documents there', async () => {
    const doc = (await request('GET', '/api/v1/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
    const verbs = ['get', 'put', 'post', 'delete', 'patch'];
    const wrong: string[] = [];
    for (const [template, item] of Object.entries(doc.paths)) {
      const path = template.replace(/\{([^}]+)\}/g, (_, name: string) => (name === 'workspaceId' ? 'ws_any' : `${name}-any`));
      const documented = Object.keys(item).filter((m) => verbs.includes(m)).map((m) => m.toUpperCase());
      const expected = documented.includes('GET') ? [...documented, 'HEAD'] : documented;
      const res = await request('OPTIONS', path);
      const allow = res.headers.get('allow')?.split(', ') ?? [];
      if (res.status !== 200 || [...allow].sort().join() !== [...expected].sort().join()) wrong.push(`${template}: ${res.status} Allow ${allow.join(', ')}, documented ${expected.join(', ')}`);
    }
    expect(wrong).to.deep.equal([]);
  });

  it('a literal path segment wins over a parameter: GET on the bulk import path is a 405 naming POST', async () => {
    const res = await request('GET', '/api/v1/workspaces/ws_any/context-nodes/import');
    problem(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).to.equal('POST');
  });

  it('answers HEAD wherever GET is allowed, with the headers and no body', async () => {
    const res = await request('HEAD', '/healthz');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.include('application/json');
    expect(res.text).to.equal('');
  });

  it('a trailing slash reaches the same route', async () => {
    const res = await request('GET', '/healthz/');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ status: 'ok' });
  });

  it('checks the key before it reads a body: no key and malformed JSON is 401, not 400', async () => {
    const res = await request('POST', '/api/v1/workspaces/ws_any/playbooks', { rawBody: '{"name":', headers: { 'content-type': 'application/json' } });
    problem(res, 401, 'unauthorized');
  });

  it('serves the OpenAPI 3.1 document with absolute paths', async () => {
    const res = await request('GET', '/api/v1/openapi.json');
    expect(res.status).to.equal(200);
    expect(res.body.openapi).to.equal('3.1.0');
    expect(res.body.paths).to.have.property('/api/v1/workspaces/{workspaceId}/members');
    expect(res.body.paths['/api/v1/admin/users'].post.requestBody.content['application/json'].schema.required).to.deep.equal(['email']);
  });

  it('documents a query parameter with a default as optional: only what has no default is required', async () => {
    const doc = (await request('GET', '/api/v1/openapi.json')).body;
    const params = doc.paths['/api/v1/workspaces/{workspaceId}/context/bundle'].get.parameters as { name: string; in: string; required: boolean }[];
    const required = params.filter((p) => p.in === 'query' && p.required).map((p) => p.name);
    expect(required).to.deep.equal(['playbookId']);
  });

  it('serves a browsable documentation page', async () => {
    const page = await request('GET', '/docs');
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-type')).to.include('text/html');
    const script = await request('GET', '/docs/assets/swagger-ui-bundle.js');
    expect(script.status).to.equal(200);
  });
});
