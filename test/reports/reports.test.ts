import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { parse } from 'csv-parse/sync';
import { type TestAgent, createAgent } from '../support/agents.js';
import { type Reply, type TestWorkspace, addMember, createWorkspace, problem, request } from '../support/api.js';
import { env } from '../support/harness.js';
import { createNode, link, linkPlaybook } from '../support/nodes.js';
import { createPlaybook } from '../support/playbooks.js';

/** The same small knowledge base, built in a workspace through the API; every id it made, by name. */
interface Seeded {
  ws: TestWorkspace;
  agent: TestAgent;
  ids: Record<string, string>;
  all: Set<string>;
}

async function seed(ws: TestWorkspace): Promise<Seeded> {
  const ids: Record<string, string> = {};
  const node = async (name: string, fields: Record<string, unknown> = {}) => {
    const n = await createNode(ws, { title: `${name} topic`, slug: name.toLowerCase(), ...fields });
    ids[name] = n.id;
    return n;
  };
  for (const name of ['Hub', 'A', 'B', 'C', 'Orphan', 'Unreached', 'Old', 'New', 'X', 'Y', 'Z']) await node(name);
  await node('Reader', { readFirst: true });
  await node('Wiki', { content: 'See [[ghost-page]] and [[ghost-page|again]].' });
  await node('Dup1', { title: 'Brand Voice: Tone' });
  await node('Dup2', { title: 'brand voice - tone' });
  await link(ws, ids.A, ids.Hub, 'requires');
  await link(ws, ids.B, ids.Hub, 'requires');
  await link(ws, ids.C, ids.Hub, 'references');
  await link(ws, ids.Orphan, ids.Unreached, 'references');
  await link(ws, ids.New, ids.Old, 'supersedes');
  await link(ws, ids.X, ids.Y, 'requires');
  await link(ws, ids.Y, ids.Z, 'requires');
  await link(ws, ids.Z, ids.X, 'requires');
  // Approved, linking to A (and through it to Hub) and to the superseded Old.
  const approved = await createPlaybook(ws, ws.owner.key, { title: 'Approved playbook', slug: 'approved' });
  ids.Approved = approved.id;
  const approve = await request('PATCH', ws.path(`/playbooks/${approved.id}/versions/${approved.latestVersion.id}/approve`), { token: ws.owner.key });
  expect(approve.status, approve.text).to.equal(200);
  await linkPlaybook(ws, approved.id, ids.A, 'references');
  await linkPlaybook(ws, approved.id, ids.Old, 'references');
  // Only a draft.
  const draft = await createPlaybook(ws, ws.owner.key, { title: 'Draft playbook', slug: 'draft' });
  ids.Draft = draft.id;
  const feedback = await request('POST', ws.path('/context/feedback'), {
    token: ws.owner.key,
    body: { targetType: 'context_node', targetId: ids.A, feedbackType: 'outdated', summary: 'The numbers are from last year' },
  });
  expect(feedback.status, feedback.text).to.equal(201);
  ids.Feedback = feedback.body.id;
  const helpful = await request('POST', ws.path('/context/feedback'), {
    token: ws.owner.key,
    body: { targetType: 'playbook', targetId: approved.id, feedbackType: 'helpful', summary: 'Clear' },
  });
  expect(helpful.status, helpful.text).to.equal(201);
  ids.Helpful = helpful.body.id;
  const agent = await createAgent(ws, { name: 'Reporter' });
  ids.Agent = agent.agentId;
  for (let i = 0; i < 2; i++) {
    const bundle = await request('GET', ws.path(`/context/bundle?playbookId=${approved.id}`), { token: agent.key });
    expect(bundle.status, bundle.text).to.equal(200);
  }
  return { ws, agent, ids, all: new Set(Object.values(ids)) };
}

const run = (s: Seeded, name: string, query = '', token = s.ws.owner.key, accept?: string): Promise<Reply> =>
  request('GET', s.ws.path(`/reports/${name}${query}`), { token, headers: accept ? { accept } : {} });

/** The rows as objects by column. */
const rowsOf = (res: Reply) => res.body.rows.map((row: unknown[]) => Object.fromEntries(res.body.columns.map((c: string, i: number) => [c, row[i]])));

/** Every id-looking string anywhere in the answer (ids carry a type prefix). */
function idsIn(value: unknown): string[] {
  if (typeof value === 'string') return /^(cn|pb|pbv|ag|fb|usr|ws|lnk|ann|key)_/.test(value) ? [value] : [];
  if (Array.isArray(value)) return value.flatMap(idsIn);
  if (value && typeof value === 'object') return Object.values(value).flatMap(idsIn);
  return [];
}

describe('saved reports (GET /api/v1/workspaces/{id}/reports)', () => {
  let one: Seeded;
  let two: Seeded;
  let reportNames: string[];

  before(async function () {
    this.timeout(120_000);
    // Two workspaces with the same knowledge base (same slugs and titles), side by side.
    one = await seed(await createWorkspace());
    two = await seed(await createWorkspace());
    // The gate adds per-agent retrievals to Neo4j every 30 s; flush now as its timer would.
    await env.service.services.gate.persistUsage();
  });

  it('lists every report with its parameters and columns, to any member and to agent keys', async () => {
    const viewer = await addMember(one.ws, 'viewer');
    for (const token of [viewer.key, one.agent.key]) {
      const res = await request('GET', one.ws.path('/reports'), { token });
      expect(res.status, res.text).to.equal(200);
      reportNames = res.body.reports.map((r: { name: string }) => r.name);
      expect(reportNames).to.include.members([
        'orphans', 'hubs', 'unresolved-wikilinks', 'stale-context', 'requires-cycles', 'playbooks-awaiting-approval',
        'unreached-nodes', 'feedback-summary', 'retrievals-per-agent', 'near-duplicate-titles',
      ]);
      const hubs = res.body.reports.find((r: { name: string }) => r.name === 'hubs');
      expect(hubs.path).to.equal(one.ws.path('/reports/hubs'));
      expect(hubs.parameters).to.deep.include({ name: 'limit', type: 'integer', description: 'how many nodes to list', required: false, default: 50, minimum: 1, maximum: 1000 });
    }
  });

  it('every report runs in each workspace and never returns another workspace’s data', async () => {
    for (const name of reportNames) {
      for (const [mine, other] of [[one, two], [two, one]] as const) {
        const res = await run(mine, name);
        expect(res.status, `${name}: ${res.text}`).to.equal(200);
        expect(res.body.report).to.equal(name);
        const found = idsIn(res.body.rows);
        expect(found.filter((id) => other.all.has(id)), `${name} leaks the other workspace`).to.deep.equal([]);
        expect(found.filter((id) => id.startsWith('ws_') && id !== mine.ws.workspaceId)).to.deep.equal([]);
      }
    }
  });

  it('orphans: the live nodes nothing links to, read-first ones left out', async () => {
    const rows = rowsOf(await run(one, 'orphans'));
    const names = new Set(rows.map((r: any) => r.id));
    for (const n of ['Orphan', 'B', 'C', 'New', 'Wiki', 'Dup1', 'Dup2']) expect(names.has(one.ids[n]), n).to.equal(true);
    for (const n of ['Hub', 'A', 'Unreached', 'Old', 'Reader', 'X', 'Y', 'Z']) expect(names.has(one.ids[n]), n).to.equal(false);
    expect(rows.find((r: any) => r.id === one.ids.Orphan)).to.include({ slug: 'orphan', title: 'Orphan topic' });
  });

  it('hubs: counted by incoming requires and references links, filtered by linkType', async () => {
    const res = await run(one, 'hubs', '?limit=1');
    expect(rowsOf(res)).to.deep.equal([{ id: one.ids.Hub, slug: 'hub', title: 'Hub topic', requiredBy: 2, referencedBy: 1, total: 3 }]);
    expect(res.body.parameters).to.deep.equal({ linkType: 'both', limit: 1 });
    const references = rowsOf(await run(one, 'hubs', '?linkType=references'));
    expect(references.find((r: any) => r.id === one.ids.Hub).total).to.equal(1);
  });

  it('unresolved wikilinks: each missing slug with who mentions it', async () => {
    const rows = rowsOf(await run(one, 'unresolved-wikilinks'));
    expect(rows).to.deep.equal([{ link: 'ghost-page', mentions: 1, mentionedByIds: [one.ids.Wiki], mentionedBySlugs: ['wiki'] }]);
  });

  it('stale context: open outdated feedback, and a superseded node an approved playbook still links to', async () => {
    const rows = rowsOf(await run(one, 'stale-context'));
    expect(rows.map((r: any) => [r.reason, r.targetId])).to.deep.equal([
      ['open-feedback', one.ids.A],
      ['superseded-but-linked', one.ids.Old],
    ]);
    expect(rows[0]).to.include({ targetType: 'context_node', title: 'A topic', detail: '1 open: outdated' });
    expect(rows[1].detail).to.equal('superseded by new; linked from playbooks approved');
  });

  it('requires cycles: each cycle once', async () => {
    const rows = rowsOf(await run(one, 'requires-cycles'));
    expect(rows).to.have.length(1);
    expect(rows[0].length).to.equal(3);
    expect([...rows[0].nodeIds].sort()).to.deep.equal([one.ids.X, one.ids.Y, one.ids.Z].sort());
    expect(rows[0].cycle.split(' -> ')).to.have.length(4);
  });

  it('playbooks awaiting approval: no approved version, or drafts waiting', async () => {
    const rows = rowsOf(await run(one, 'playbooks-awaiting-approval'));
    expect(rows.map((r: any) => r.id)).to.deep.equal([one.ids.Draft]);
    expect(rows[0]).to.include({ hasApprovedVersion: false, approvedVersion: null, draftsWaiting: 1, latestVersion: 1 });
  });

  it('nodes no playbook reaches within two links', async () => {
    const ids = new Set(rowsOf(await run(one, 'unreached-nodes')).map((r: any) => r.id));
    for (const n of ['Unreached', 'Orphan', 'B', 'C', 'X']) expect(ids.has(one.ids[n]), n).to.equal(true);
    for (const n of ['A', 'Hub', 'Old', 'Reader']) expect(ids.has(one.ids[n]), n).to.equal(false);
  });

  it('feedback by type and target over a period', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const rows = rowsOf(await run(one, 'feedback-summary', `?from=${today}&to=${today}`));
    expect(rows.map((r: any) => [r.targetId, r.feedbackType, r.total, r.open])).to.have.deep.members([
      [one.ids.A, 'outdated', 1, 1],
      [one.ids.Approved, 'helpful', 1, 1],
    ]);
    expect(rowsOf(await run(one, 'feedback-summary', '?to=2000-01-01'))).to.deep.equal([]);
  });

  it('retrievals per agent and month', async () => {
    const month = new Date().toISOString().slice(0, 7);
    const rows = rowsOf(await run(one, 'retrievals-per-agent', `?from=${month}`));
    expect(rows).to.deep.equal([{ month, agentId: one.ids.Agent, agentName: 'Reporter', agentStatus: 'active', retrievals: 2 }]);
  });

  it('near-duplicate titles: the same once case, punctuation and spacing are ignored', async () => {
    const rows = rowsOf(await run(one, 'near-duplicate-titles'));
    expect(rows).to.have.length(1);
    expect(rows[0]).to.include({ normalizedTitle: 'brand voice tone', count: 2 });
    expect([...rows[0].ids].sort()).to.deep.equal([one.ids.Dup1, one.ids.Dup2].sort());
  });

  it('answers CSV to Accept: text/csv', async () => {
    const res = await run(one, 'hubs', '', one.ws.owner.key, 'text/csv');
    expect(res.status, res.text).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/csv/);
    const rows = parse(res.text) as string[][];
    expect(rows[0]).to.deep.equal(['id', 'slug', 'title', 'requiredBy', 'referencedBy', 'total']);
    expect(rows[1]).to.deep.equal([one.ids.Hub, 'hub', 'Hub topic', '2', '1', '3']);
  });

  it('npm run cli -- report runs one over HTTP with a member’s key', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'report', 'hubs', '--workspace', one.ws.workspaceId, '--param', 'limit=1', '--format', 'csv'], {
      env: { ...process.env, API_KEY: one.agent.key, API_URL: env.service.url },
    });
    expect(stdout.trim().split(/\r?\n/)).to.deep.equal(['id,slug,title,requiredBy,referencedBy,total', `${one.ids.Hub},hub,Hub topic,2,1,3`]);
  });

  it('a bad or unknown parameter is a 400 naming it', async () => {
    const cases: [string, string, string][] = [
      ['hubs', '?limit=0', '/limit'],
      ['hubs', '?limit=many', '/limit'],
      ['hubs', '?linkType=mentions', '/linkType'],
      ['feedback-summary', '?from=yesterday', '/from'],
      ['retrievals-per-agent', '?to=2026-13', '/to'],
      ['orphans', '?nodeType=brand', '/nodeType'],
      ['hubs', '?limit=1&limit=2', '/limit'],
    ];
    for (const [name, query, path] of cases) {
      const body = problem(await run(one, name, query), 400, 'invalid_request');
      expect(body.errors?.map((e) => e.path), `${name}${query}`).to.deep.equal([path]);
      expect(body.detail).to.contain(path.slice(1));
    }
  });

  it('is refused to a non-member (404) and without a key (401); an unknown report is 404', async () => {
    const stranger = await createWorkspace();
    problem(await run(one, 'hubs', '', stranger.owner.key), 404, 'not_found');
    problem(await request('GET', one.ws.path('/reports/hubs')), 401, 'unauthorized');
    problem(await run(one, 'no-such-report'), 404, 'not_found');
  });
});
