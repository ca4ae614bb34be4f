import { expect } from 'chai';
import { type TestWorkspace, addMember, createWorkspace, problem, request } from '../support/api.js';
import { createNode, getNode, graphEtag, link, listNodes, nodesBySlug, outgoingOf } from '../support/nodes.js';

const importNodes = (workspace: TestWorkspace, body: unknown, token = workspace.owner.key) =>
  request('POST', workspace.path('/context-nodes/import'), { token, body });




describe('bulk import of context nodes', () => {
  it('creates a batch with wikilinks and typed links, also to nodes later in the batch', async () => {
    const workspace = await createWorkspace();
    const reply = await importNodes(workspace, {
      nodes: [
        { slug: 'alpha', title: 'Alpha', description: 'First', content: 'See [[beta]], [[gamma|the third]] and [[missing]].', links: [{ linkType: 'requires', target: 'gamma' }] },
        { slug: 'beta', title: 'Beta', description: 'Second', nodeType: 'process', importance: 80, readFirst: true, content: '[[alpha#intro]]' },
        { slug: 'gamma', title: 'Gamma', description: 'Third', links: [{ linkType: 'supersedes', target: 'beta' }, { linkType: 'relates-to', target: 'nowhere' }] },
      ],
    });
    expect(reply.status).to.equal(200);
    expect(reply.body.written).to.equal(true);
    expect(reply.body.summary).to.deep.equal({ created: 3, updated: 0, unchanged: 0, archived: 0, errors: 0 });
    expect(reply.body.nodes.map((n: any) => [n.index, n.slug, n.outcome])).to.deep.equal([[0, 'alpha', 'created'], [1, 'beta', 'created'], [2, 'gamma', 'created']]);
    expect(reply.body.nodes[0].unresolvedLinks).to.deep.equal(['missing']);
    expect(reply.body.nodes[2].unresolvedLinks).to.deep.equal(['nowhere']);

    const stored = await nodesBySlug(workspace);
    expect(outgoingOf(stored.alpha)).to.deep.equal(['references>beta', 'references>gamma', 'requires>gamma']);
    expect(stored.alpha.unresolvedLinks).to.deep.equal(['missing']);
    expect(stored.alpha.id).to.equal(reply.body.nodes[0].id);
    expect(outgoingOf(stored.beta)).to.deep.equal(['references>alpha']);
    expect(stored.beta).to.include({ nodeType: 'process', importance: 80, readFirst: true, edgeCaseOnly: false, content: '[[alpha#intro]]' });
    expect(outgoingOf(stored.gamma)).to.deep.equal(['supersedes>beta']);
    expect(stored.gamma.outgoingLinks[0].origin).to.equal('manual');
    // One audit event for the request, naming every node it wrote.
    const audit = (await request('GET', workspace.path('/audit-events?action=node.imported'), { token: workspace.owner.key })).body.events;
    expect(audit).to.have.length(1);
    expect(audit[0].actor).to.include({ kind: 'user', id: workspace.owner.userId });
    expect([...audit[0].targetIds].sort()).to.deep.equal([stored.alpha.id, stored.beta.id, stored.gamma.id].sort());
    expect(audit[0].after).to.deep.equal({ created: 3, updated: 0, archived: 0 });
  });

  it('a second import of the same batch writes nothing and keeps the graph generation (ETag)', async () => {
    const workspace = await createWorkspace();
    const batch = {
      nodes: [
        { slug: 'one', title: 'One', description: 'd', content: '[[two]]', links: [{ linkType: 'references', target: 'two' }, { linkType: 'requires', target: 'two' }] },
        { slug: 'two', title: 'Two', description: 'd', agentSummary: 'short', links: [] },
      ],
    };
    expect((await importNodes(workspace, batch)).body.summary.created).to.equal(2);
    const etag = await graphEtag(workspace);
    const before = await nodesBySlug(workspace);

    const again = await importNodes(workspace, batch);
    expect(again.status).to.equal(200);
    expect(again.body.written).to.equal(false);
    expect(again.body.summary).to.deep.equal({ created: 0, updated: 0, unchanged: 2, archived: 0, errors: 0 });
    expect(again.body.nodes.map((n: any) => n.id)).to.deep.equal([before.one.id, before.two.id]);
    expect(await graphEtag(workspace)).to.equal(etag);
    expect(await nodesBySlug(workspace)).to.deep.equal(before);
    // An import that wrote nothing records nothing.
    const audit = (await request('GET', workspace.path('/audit-events?action=node.imported'), { token: workspace.owner.key })).body.events;
    expect(audit).to.have.length(1);
  });

  it('a changed item updates its node and its links; omitted fields go back to their defaults', async () => {
    const workspace = await createWorkspace();
    await importNodes(workspace, {
      nodes: [
        { slug: 'a', title: 'A', description: 'd', importance: 90, content: '[[b]]', links: [{ linkType: 'requires', target: 'c' }] },
        { slug: 'b', title: 'B', description: 'd' },
        { slug: 'c', title: 'C', description: 'd' },
      ],
    });
    const etag = await graphEtag(workspace);
    const reply = await importNodes(workspace, {
      nodes: [
        { slug: 'a', title: 'A2', description: 'd', content: '[[c]]', links: [{ linkType: 'relates-to', target: 'b' }] },
        { slug: 'b', title: 'B', description: 'd' },
      ],
    });
    expect(reply.body.nodes.map((n: any) => n.outcome)).to.deep.equal(['updated', 'unchanged']);
    expect(await graphEtag(workspace)).to.not.equal(etag);
    const stored = await nodesBySlug(workspace);
    expect(stored.a).to.include({ title: 'A2', importance: 50, content: '[[c]]' });
    expect(outgoingOf(stored.a)).to.deep.equal(['references>c', 'relates-to>b']);
  });

  it('archives the slugs listed in archive, restores an archived node that is imported again', async () => {
    const workspace = await createWorkspace();
    await importNodes(workspace, { nodes: [{ slug: 'keep', title: 'Keep', description: 'd' }, { slug: 'gone', title: 'Gone', description: 'd' }] });
    const pruned = await importNodes(workspace, { archive: ['gone', 'unknown-slug'] });
    expect(pruned.body.archive.map((a: any) => [a.slug, a.outcome, a.error?.code ?? null])).to.deep.equal([['gone', 'archived', null], ['unknown-slug', 'error', 'not_found']]);
    expect(pruned.body.summary).to.include({ archived: 1, errors: 1 });
    expect((await nodesBySlug(workspace)).gone.status).to.equal('archived');
    const again = await importNodes(workspace, { archive: ['gone'] });
    expect(again.body).to.include({ written: false });
    expect(again.body.archive[0].outcome).to.equal('unchanged');

    const back = await importNodes(workspace, { nodes: [{ slug: 'gone', title: 'Gone', description: 'd' }] });
    expect(back.body.nodes[0].outcome).to.equal('updated');
    expect((await nodesBySlug(workspace)).gone).to.include({ status: 'live', archivedAt: null });
  });

  it('a dry run answers what would happen and writes nothing', async () => {
    const workspace = await createWorkspace();
    await importNodes(workspace, { nodes: [{ slug: 'old', title: 'Old', description: 'd' }, { slug: 'same', title: 'Same', description: 'd' }] });
    const etag = await graphEtag(workspace);
    const before = await nodesBySlug(workspace);
    const reply = await importNodes(workspace, {
      dryRun: true,
      nodes: [{ slug: 'new', title: 'New', description: 'd', content: '[[ghost]]' }, { slug: 'same', title: 'Same', description: 'changed' }],
      archive: ['old'],
    });
    expect(reply.status).to.equal(200);
    expect(reply.body).to.include({ dryRun: true, written: false });
    expect(reply.body.nodes.map((n: any) => [n.slug, n.outcome, n.id === null])).to.deep.equal([['new', 'created', true], ['same', 'updated', false]]);
    expect(reply.body.nodes[0].unresolvedLinks).to.deep.equal(['ghost']);
    expect(reply.body.archive[0].outcome).to.equal('archived');
    expect(await graphEtag(workspace)).to.equal(etag);
    expect(await nodesBySlug(workspace)).to.deep.equal(before);
  });

  it('answers each bad item with its reason and writes the others', async () => {
    const workspace = await createWorkspace();
    const many = Array.from({ length: 1001 }, (_, i) => `[[s-${i}]]`).join(' ');
    const reply = await importNodes(workspace, {
      nodes: [
        { slug: 'fine', title: 'Fine', description: 'd' },
        { slug: 'fine', title: 'Twice', description: 'd' },
        { slug: 'selfish', title: 'Self', description: 'd', links: [{ linkType: 'requires', target: 'selfish' }] },
        { slug: 'chatty', title: 'Chatty', description: 'd', content: many },
      ],
    });
    expect(reply.status).to.equal(200);
    expect(reply.body.nodes.map((n: any) => [n.slug, n.outcome, n.error?.code ?? null])).to.deep.equal([
      ['fine', 'created', null], ['fine', 'error', 'duplicate_slug'], ['selfish', 'error', 'invalid_request'], ['chatty', 'error', 'invalid_request'],
    ]);
    expect(reply.body.nodes[1].error.message).to.match(/Item 0/);
    expect(Object.keys(await nodesBySlug(workspace))).to.deep.equal(['fine']);
    expect((await nodesBySlug(workspace)).fine.title).to.equal('Fine');
  });

  it('refuses a malformed item, an oversized batch and a body over 1 MiB with a 4xx, writing nothing', async () => {
    const workspace = await createWorkspace();
    const etag = await graphEtag(workspace);
    const bad = await importNodes(workspace, { nodes: [{ slug: 'ok', title: 'Ok', description: 'd' }, { slug: 'Bad Slug', title: 'x'.repeat(201), description: 'd', nodeType: 'poem' }] });
    const body = problem(bad, 400, 'invalid_request');
    expect(body.errors!.map((e) => e.path)).to.include.members(['/nodes/1/slug', '/nodes/1/title', '/nodes/1/nodeType']);
    problem(await importNodes(workspace, { nodes: [{ slug: 'x', title: 'X', description: 'd', color: 'red' }] }), 400, 'invalid_request');
    const tooMany = Array.from({ length: 1001 }, (_, i) => ({ slug: `n-${i}`, title: 'N', description: 'd' }));
    expect(problem(await importNodes(workspace, { nodes: tooMany }), 400, 'invalid_request').errors![0].path).to.equal('/nodes');
    const big = Array.from({ length: 3 }, (_, i) => ({ slug: `big-${i}`, title: 'Big', description: 'd', content: 'x'.repeat(400_000) }));
    problem(await importNodes(workspace, { nodes: big }), 413, 'payload_too_large');
    expect((await listNodes(workspace, { status: 'all' })).nodes).to.deep.equal([]);
    expect(await graphEtag(workspace)).to.equal(etag);
  });

  it('needs the editor role; manual links made by hand are replaced only when an item lists its links', async () => {
    const workspace = await createWorkspace();
    const viewer = await addMember(workspace, 'viewer');
    const editor = await addMember(workspace, 'editor');
    problem(await importNodes(workspace, { nodes: [{ slug: 'v', title: 'V', description: 'd' }] }, viewer.key), 403, 'insufficient_role');
    expect((await importNodes(workspace, { nodes: [{ slug: 'e', title: 'E', description: 'd' }, { slug: 'f', title: 'F', description: 'd' }] }, editor.key)).status).to.equal(200);

    const byHand = await createNode(workspace, { title: 'Hand', slug: 'hand', description: 'd' });
    const e = (await nodesBySlug(workspace)).e;
    await link(workspace, e.id, byHand.id, 'requires');
    const untouched = await importNodes(workspace, { nodes: [{ slug: 'e', title: 'E', description: 'd' }] }, editor.key);
    expect(untouched.body.nodes[0].outcome).to.equal('unchanged');
    expect(outgoingOf((await nodesBySlug(workspace)).e)).to.deep.equal(['requires>hand']);
    const replaced = await importNodes(workspace, { nodes: [{ slug: 'e', title: 'E', description: 'd', links: [{ linkType: 'references', target: 'f' }] }] }, editor.key);
    expect(replaced.body.nodes[0].outcome).to.equal('updated');
    expect(outgoingOf((await nodesBySlug(workspace)).e)).to.deep.equal(['references>f']);
  });

  it('a node created by import resolves the wikilinks other nodes were waiting with', async () => {
    const workspace = await createWorkspace();
    const waiting = await createNode(workspace, { title: 'Waiting', description: 'd', content: 'needs [[later]]' });
    expect((await getNode(workspace, waiting.id)).unresolvedLinks).to.deep.equal(['later']);
    await importNodes(workspace, { nodes: [{ slug: 'later', title: 'Later', description: 'd' }] });
    const after = await getNode(workspace, waiting.id);
    expect(after.unresolvedLinks).to.deep.equal([]);
    expect(outgoingOf(after)).to.deep.equal(['references>later']);
  });
});
