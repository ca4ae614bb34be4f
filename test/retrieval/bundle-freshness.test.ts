import { expect } from 'chai';
import type { RunningService } from '../../src/runtime.js';
import { type Reply, type TestWorkspace, createWorkspace, request } from '../support/api.js';
import { startExtraService } from '../support/harness.js';
import { createNode, getNode, link, linkPlaybook, updateNode } from '../support/nodes.js';
import { createPlaybook, createVersion, getPlaybook } from '../support/playbooks.js';

/**
 * A bundle's CONTENT is fresh after every change (retrieval-cache.test.ts checks that the ETag moves; this
 * checks what the next bundle says). Each change is made after a first bundle was served, so that an
 * answer for the old graph is cached when the change lands.
 */
interface Fixture {
  w: TestWorkspace;
  playbookId: string;
  /** Linked from the playbook (references). */
  a: any;
  /** In the workspace, linked from nothing. */
  b: any;
}

async function fixture(): Promise<Fixture> {
  const w = await createWorkspace();
  const pb = await createPlaybook(w, w.owner.key, { title: 'Onboarding', version: { content: { instructions: 'v1 steps' } } });
  const a = await createNode(w, { title: 'Tone', content: 'Warm and short.' });
  const b = await createNode(w, { title: 'Glossary', content: 'Terms.' });
  await linkPlaybook(w, pb.id, a.id, 'references');
  return { w, playbookId: pb.id, a, b };
}

function bundle(f: Fixture, options: { baseUrl?: string; etag?: string } = {}): Promise<Reply> {
  return request('GET', f.w.path(`/context/bundle?playbookId=${f.playbookId}`), {
    token: f.w.owner.key,
    baseUrl: options.baseUrl,
    headers: options.etag ? { 'if-none-match': options.etag } : {},
  });
}

/** The bundle's body (200 asserted), served twice so that the second comes from whatever cache there is. */
async function servedAndCached(f: Fixture, baseUrl?: string): Promise<Reply> {
  const first = await bundle(f, { baseUrl });
  expect(first.status, first.text).to.equal(200);
  const again = await bundle(f, { baseUrl });
  expect(again.text).to.equal(first.text);
  return again;
}

/** The next bundle after a change: 200 to the old ETag (never 304), and the body. */
async function nextBundle(f: Fixture, before: Reply, baseUrl?: string): Promise<any> {
  const res = await bundle(f, { baseUrl, etag: before.headers.get('etag')! });
  expect(res.status, res.text).to.equal(200);
  expect(res.headers.get('etag')).not.to.equal(before.headers.get('etag'));
  return res.body;
}

async function approve(f: Fixture, versionId: string): Promise<void> {
  const res = await request('PATCH', f.w.path(`/playbooks/${f.playbookId}/versions/${versionId}/approve`), { token: f.w.owner.key });
  expect(res.status, res.text).to.equal(200);
}

describe('bundle content is fresh after each change', () => {
  it('a new version approved: activeVersion has the new content', async () => {
    const f = await fixture();
    const v1 = (await getPlaybook(f.w, f.w.owner.key, f.playbookId)).versions[0];
    await approve(f, v1.id);
    const before = await servedAndCached(f);
    expect(before.body.playbook.activeVersion).to.include({ id: v1.id, versionNumber: 1, status: 'approved' });
    expect(before.body.playbook.activeVersion.content).to.deep.equal({ instructions: 'v1 steps' });

    const v2 = await createVersion(f.w, f.w.owner.key, f.playbookId, { content: { instructions: 'v2 steps' }, changeNote: 'clearer' });
    // A new draft shows as latestVersion at once, and leaves the active version as it was.
    const withDraft = await nextBundle(f, before);
    expect(withDraft.playbook.latestVersion).to.deep.equal({ id: v2.id, versionNumber: 2, status: 'draft' });
    expect(withDraft.playbook.activeVersion).to.deep.equal(before.body.playbook.activeVersion);

    const cachedDraft = await servedAndCached(f);
    await approve(f, v2.id);
    const after = await nextBundle(f, cachedDraft);
    expect(after.playbook.activeVersion).to.deep.equal({ id: v2.id, versionNumber: 2, status: 'approved', content: { instructions: 'v2 steps' }, changeNote: 'clearer' });
    expect(after.playbook.latestVersion).to.deep.equal({ id: v2.id, versionNumber: 2, status: 'approved' });
    const stored = await getPlaybook(f.w, f.w.owner.key, f.playbookId);
    expect(stored.versions.map((v: any) => [v.versionNumber, v.status])).to.deep.equal([[2, 'approved'], [1, 'deprecated']]);
    expect(stored.activeVersion).to.deep.equal({ id: v2.id, versionNumber: 2 });
  });

  it('a playbook edit: the new title', async () => {
    const f = await fixture();
    const before = await servedAndCached(f);
    expect(before.body.playbook.title).to.equal('Onboarding');
    const res = await request('PATCH', f.w.path(`/playbooks/${f.playbookId}`), { token: f.w.owner.key, body: { title: 'Onboarding, revised' } });
    expect(res.status, res.text).to.equal(200);
    expect((await nextBundle(f, before)).playbook.title).to.equal('Onboarding, revised');
    expect((await getPlaybook(f.w, f.w.owner.key, f.playbookId)).title).to.equal('Onboarding, revised');
  });

  it('an annotation removed: it is gone from annotations, the others stay', async () => {
    const f = await fixture();
    const annotate = async (targetType: string, targetId: string, title: string) => {
      const res = await request('POST', f.w.path('/context/annotations'), {
        token: f.w.owner.key,
        body: { targetType, targetId, scopeType: 'workspace_overlay', title, content: `${title}.` },
      });
      expect(res.status, res.text).to.equal(201);
      return res.body.id as string;
    };
    const onNode = await annotate('context_node', f.a.id, 'Mind the tone');
    const onPlaybook = await annotate('playbook', f.playbookId, 'Ask first');
    const before = await servedAndCached(f);
    expect(before.body.annotations.map((x: any) => x.id)).to.have.members([onNode, onPlaybook]);

    expect((await request('DELETE', f.w.path(`/context/annotations/${onNode}`), { token: f.w.owner.key })).status).to.equal(204);
    const after = await nextBundle(f, before);
    expect(after.annotations.map((x: any) => x.id)).to.deep.equal([onPlaybook]);
    const listed = await request('GET', f.w.path('/context/annotations'), { token: f.w.owner.key });
    expect(listed.body.annotations.map((x: any) => x.id)).to.deep.equal([onPlaybook]);
  });

  it('a link added between two existing nodes: the node it makes reachable comes in, with the reason', async () => {
    const f = await fixture();
    const before = await servedAndCached(f);
    expect(before.body.nodes.map((n: any) => n.id)).to.deep.equal([f.a.id]);

    const made = await link(f.w, f.a.id, f.b.id, 'relates-to');
    const after = await nextBundle(f, before);
    expect(after.nodes.map((n: any) => n.id)).to.deep.equal([f.a.id, f.b.id]);
    const b = after.nodes.find((n: any) => n.id === f.b.id);
    expect(b.reason).to.deep.equal({ kind: 'relates-to', fromId: f.a.id, depth: 2 });
    expect(b).to.include({ title: 'Glossary', content: 'Terms.' });
    expect((await getNode(f.w, f.a.id)).outgoingLinks.map((l: any) => l.id)).to.deep.equal([made.id]);
  });

  describe('a read racing a write never answers the old graph once the write has answered', () => {
    let extra: RunningService;
    before(async () => {
      extra = await startExtraService();
    });
    after(() => extra?.stop());

    const jitter = () => new Promise((r) => setTimeout(r, Math.floor(Math.random() * 4)));

    it('node and playbook edits raced by bundles through two processes, 20 rounds', async function () {
      this.timeout(120_000);
      const f = await fixture();
      const places = [undefined, extra.url];
      let previous = await servedAndCached(f);
      await servedAndCached(f, extra.url);
      for (let i = 0; i < 20; i++) {
        const title = `Round ${i}`;
        const write =
          i % 2
            ? request('PATCH', f.w.path(`/playbooks/${f.playbookId}`), { token: f.w.owner.key, body: { title } }).then((r) => expect(r.status, r.text).to.equal(200))
            : updateNode(f.w, f.a.id, { title });
        // Bundles started just before, with and just after the write, through both processes.
        const racing = [0, 1, 2, 3].map(async (j) => {
          await jitter();
          return bundle(f, { baseUrl: places[j % 2] });
        });
        const [, ...raced] = await Promise.all([write, ...racing]);
        for (const r of raced) expect(r.status).to.equal(200); // either answer is fair while the write is in flight
        const shown = (body: any) => (i % 2 ? body.playbook.title : body.nodes.find((n: any) => n.id === f.a.id).title);
        for (const baseUrl of places) {
          const next = await bundle(f, { baseUrl });
          expect(next.status).to.equal(200);
          expect(shown(next.body), `round ${i} through ${baseUrl ?? 'the shared service'}`).to.equal(title);
          // And the ETag of the answer before the write no longer matches.
          const conditional = await bundle(f, { baseUrl, etag: previous.headers.get('etag')! });
          expect(conditional.status, `round ${i} conditional through ${baseUrl ?? 'the shared service'}`).to.equal(200);
          expect(shown(conditional.body)).to.equal(title);
        }
        previous = await bundle(f);
      }
      expect((await getNode(f.w, f.a.id)).title).to.equal('Round 18');
      expect((await getPlaybook(f.w, f.w.owner.key, f.playbookId)).title).to.equal('Round 19');
    });
  });
});
