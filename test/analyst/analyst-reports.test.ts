import { expect } from 'chai';
import { parse } from 'csv-parse/sync';
import { createWorkspace, problem, request } from '../support/api.js';
import { adminToken, analystToken } from '../support/harness.js';
import { createNode, link } from '../support/nodes.js';

/** The saved reports for the operator's analysts: GET /api/v1/admin/reports and /api/v1/admin/reports/{name}. */
describe('analyst reports (GET /api/v1/admin/reports)', () => {
  it('lists the same reports as a workspace, each with its path under /admin', async () => {
    const ws = await createWorkspace();
    const own = await request('GET', ws.path('/reports'), { token: ws.owner.key });
    const res = await request('GET', '/api/v1/admin/reports', { token: analystToken });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.reports.map((r: any) => r.name)).to.deep.equal(own.body.reports.map((r: any) => r.name));
    const hubs = res.body.reports.find((r: any) => r.name === 'hubs');
    expect(hubs.path).to.equal('/api/v1/admin/reports/hubs');
    expect(hubs.parameters).to.deep.equal(own.body.reports.find((r: any) => r.name === 'hubs').parameters);
    expect(hubs.columns).to.deep.equal(['id', 'slug', 'title', 'requiredBy', 'referencedBy', 'total']);
  });

  it('takes the analyst or the operator token only: none is 401, an API key 403', async () => {
    const ws = await createWorkspace();
    problem(await request('GET', '/api/v1/admin/reports'), 401, 'unauthorized');
    problem(await request('GET', `/api/v1/admin/reports/hubs?workspaceId=${ws.workspaceId}`), 401, 'unauthorized');
    problem(await request('GET', `/api/v1/admin/reports/hubs?workspaceId=${ws.workspaceId}`, { token: ws.owner.key }), 403, 'forbidden');
    problem(await request('GET', '/api/v1/admin/reports', { token: ws.owner.key }), 403, 'forbidden');
    expect((await request('GET', `/api/v1/admin/reports/hubs?workspaceId=${ws.workspaceId}`, { token: adminToken })).status).to.equal(200);
  });

  it('answers an unknown report 404 and an invalid, unknown or missing parameter 400 naming it', async () => {
    const ws = await createWorkspace();
    problem(await request('GET', `/api/v1/admin/reports/no-such-report?workspaceId=${ws.workspaceId}`, { token: analystToken }), 404);
    const outOfRange = problem(await request('GET', `/api/v1/admin/reports/hubs?workspaceId=${ws.workspaceId}&limit=0`, { token: analystToken }), 400);
    expect(JSON.stringify(outOfRange.errors)).to.contain('limit');
    const notOneOf = problem(await request('GET', `/api/v1/admin/reports/hubs?workspaceId=${ws.workspaceId}&linkType=sideways`, { token: analystToken }), 400);
    expect(JSON.stringify(notOneOf.errors)).to.contain('linkType');
    const unknown = problem(await request('GET', `/api/v1/admin/reports/hubs?workspaceId=${ws.workspaceId}&colour=red`, { token: analystToken }), 400);
    expect(JSON.stringify(unknown.errors)).to.contain('colour');
    const missing = problem(await request('GET', '/api/v1/admin/reports/hubs', { token: analystToken }), 400);
    expect(JSON.stringify(missing.errors)).to.contain('workspaceId');
  });

  it("runs a report with the workspace route's rows, as JSON and CSV, and records it in the workspace's audit log", async () => {
    const ws = await createWorkspace();
    const hub = await createNode(ws, { title: 'Hub topic', slug: 'hub' });
    const a = await createNode(ws, { title: 'A topic', slug: 'a' });
    const b = await createNode(ws, { title: 'B topic', slug: 'b' });
    await link(ws, a.id, hub.id, 'requires');
    await link(ws, b.id, hub.id, 'references');
    // Another workspace's hub stays out of this one's report.
    const other = await createWorkspace();
    const elsewhere = await createNode(other, { slug: 'elsewhere' });
    await link(other, (await createNode(other, { slug: 'to-elsewhere' })).id, elsewhere.id, 'requires');

    const own = await request('GET', ws.path('/reports/hubs?limit=10'), { token: ws.owner.key });
    expect(own.status, own.text).to.equal(200);
    const res = await request('GET', `/api/v1/admin/reports/hubs?workspaceId=${ws.workspaceId}&limit=10`, { token: analystToken });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.deep.equal(own.body);
    expect(res.body.rows).to.deep.equal([[hub.id, 'hub', 'Hub topic', 1, 1, 2]]);
    expect(res.body.parameters).to.deep.equal({ linkType: 'both', limit: 10 });

    const csv = await request('GET', `/api/v1/admin/reports/hubs?workspaceId=${ws.workspaceId}&linkType=requires`, { token: analystToken, headers: { accept: 'text/csv' } });
    expect(csv.status, csv.text).to.equal(200);
    expect(csv.headers.get('content-type')).to.match(/^text\/csv/);
    expect(parse(csv.text, { columns: true })).to.deep.equal([{ id: hub.id, slug: 'hub', title: 'Hub topic', requiredBy: '1', referencedBy: '1', total: '1' }]);

    const events = await request('GET', ws.path('/audit-events?action=analyst.report.run'), { token: ws.owner.key });
    expect(events.status, events.text).to.equal(200);
    expect(events.body.events.map((e: any) => [e.actor.kind, e.after.report, e.after.rows, e.after.outcome])).to.deep.equal([
      ['analyst', 'hubs', 1, 'ok'],
      ['analyst', 'hubs', 1, 'ok'],
    ]);
  });
});
