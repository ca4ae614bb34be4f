import { expect } from 'chai';
import { type TestWorkspace, addMember, createUser, createWorkspace, problem, request } from '../support/api.js';
import { createAgent } from '../support/agents.js';
import { startExtraService } from '../support/harness.js';
import { archiveNode, createNode, getNode, updateNode } from '../support/nodes.js';
import { createPlaybook, createVersion } from '../support/playbooks.js';
import {
  type Graph,
  buildGraph,
  bundleOf,
  expectScoresAgreeWithOrder,
  followOf,
  getBundle,
  getFollow,
  getManifest,
  getUpdates,
  namesOf,
  reasonsOf,
} from '../support/retrieval.js';

const baseNodeKeys = ['id', 'slug', 'title', 'nodeType', 'importance', 'readFirst', 'edgeCaseOnly', 'updatedAt', 'score', 'reason'];

async function manifestOf(g: Graph, query: Record<string, string | number> = {}, token = g.workspace.owner.key): Promise<any> {
  const res = await getManifest(g.workspace, { playbookId: g.playbookId, ...query }, token);
  if (res.status !== 200) throw new Error(`manifest: expected 200, got ${res.status} ${res.text}`);
  return res.body;
}

describe('retrieval', () => {
  describe('bundle shape and modes', () => {
    let g: Graph;
    let v1: string;
    let v2: string;
    before(async () => {
      g = await buildGraph(await createWorkspace(), {
        nodes: {
          a: { importance: 90, nodeType: 'process', description: 'A description', agentSummary: 'A summary', content: 'alpha content' },
          b: { importance: 80, description: 'B description', agentSummary: 'B summary', content: 'bbbbbbbb' },
          c: { importance: 10, description: 'C description' },
          x: { importance: 100, content: 'archived' },
        },
        links: [
          ['pb', 'references', 'a'], ['pb', 'references', 'b'], ['pb', 'references', 'c'], ['pb', 'references', 'x'],
          ['a', 'references', 'b'], ['b', 'relates-to', 'c'], ['a', 'references', 'x'], ['c', 'supersedes', 'a'],
        ],
        archived: ['x'],
      });
      // version 1 approved (active), version 2 a draft (latest)
      const pb = await request('GET', g.workspace.path(`/playbooks/${g.playbookId}`), { token: g.workspace.owner.key });
      v1 = pb.body.latestVersion.id;
      const approved = await request('PATCH', g.workspace.path(`/playbooks/${g.playbookId}/versions/${v1}/approve`), { token: g.workspace.owner.key });
      expect(approved.status).to.equal(200);
      v2 = (await createVersion(g.workspace, g.workspace.owner.key, g.playbookId, { content: { instructions: 'second' }, changeNote: 'v2 note' })).id;
    });

    it('standard mode (the default) gives the playbook with its latest and active versions and each node with its content', async () => {
      const body = await bundleOf(g);
      const pb = (await request('GET', g.workspace.path(`/playbooks/${g.playbookId}`), { token: g.workspace.owner.key })).body;
      const active = pb.versions.find((v: any) => v.id === v1);
      expect(body.playbook).to.deep.equal({
        id: g.playbookId,
        title: pb.title,
        slug: pb.slug,
        latestVersion: { id: v2, versionNumber: 2, status: 'draft' },
        activeVersion: { id: v1, versionNumber: 1, status: 'approved', content: active.content, changeNote: active.changeNote },
      });
      expect(Object.keys(body)).to.have.members(['playbook', 'nodes', 'annotations', 'truncated', 'omittedNodeIds', 'omitted', 'omittedCount', 'tokenCount']);
      expect(namesOf(g, body)).to.deep.equal(['b', 'c', 'a']); // a is superseded by c
      for (const n of body.nodes) {
        expect(Object.keys(n)).to.include.members(baseNodeKeys);
        expect([...baseNodeKeys, 'content']).to.include.members(Object.keys(n));
      }
      const a = body.nodes.find((n: any) => n.id === g.id.a);
      const stored = await getNode(g.workspace, g.id.a);
      expect(a).to.deep.equal({
        id: g.id.a, slug: stored.slug, title: 'a', nodeType: 'process', importance: 90, readFirst: false, edgeCaseOnly: false,
        updatedAt: stored.updatedAt, score: a.score, reason: { kind: 'references', fromId: g.playbookId, depth: 1 }, content: 'alpha content',
      });
      expect(body.nodes.find((n: any) => n.id === g.id.b).content).to.equal('bbbbbbbb');
      expect(body.truncated).to.equal(false);
      expect(body.omittedNodeIds).to.deep.equal([]);
      expect(body.annotations).to.deep.equal([]);
      expect(await bundleOf(g, { mode: 'standard' })).to.deep.equal(body);
    });

    it('summary mode leaves content out and gives agentSummary, or the description when there is none', async () => {
      const body = await bundleOf(g, { mode: 'summary' });
      expect(namesOf(g, body)).to.deep.equal(['b', 'c', 'a']);
      for (const n of body.nodes) expect(Object.keys(n)).to.have.members([...baseNodeKeys, 'agentSummary']);
      const summary = Object.fromEntries(body.nodes.map((n: any) => [g.name[n.id], n.agentSummary]));
      expect(summary).to.deep.equal({ a: 'A summary', b: 'B summary', c: 'C description' });
      expect(body).not.to.have.property('links');
    });

    it('full mode adds description, agentSummary and the links among the returned nodes', async () => {
      const body = await bundleOf(g, { mode: 'full' });
      expect(namesOf(g, body)).to.deep.equal(['b', 'c', 'a']);
      for (const n of body.nodes) expect(Object.keys(n)).to.include.members([...baseNodeKeys, 'content', 'description', 'agentSummary']);
      const a = body.nodes.find((n: any) => n.id === g.id.a);
      expect(a).to.include({ content: 'alpha content', description: 'A description', agentSummary: 'A summary' });
      const l = (k: string) => {
        const x = g.links[k];
        return { id: x.id, sourceId: x.sourceId, targetId: x.targetId, linkType: x.linkType, sections: [] };
      };
      // playbook links and links to the archived node are not among the returned nodes
      expect(body.links).to.have.deep.members([l('a>references>b'), l('b>relates-to>c'), l('c>supersedes>a')]);
    });

    it('full mode lists only links whose both ends are returned', async () => {
      const body = await bundleOf(g, { mode: 'full', maxNodes: 2 });
      expect(namesOf(g, body)).to.deep.equal(['b', 'c']);
      expect(body.links.map((x: any) => x.id)).to.deep.equal([g.links['b>relates-to>c'].id]);
    });

    it('the manifest ranks like the bundle and gives summaries, descriptions and approximate token counts instead of content', async () => {
      const [bundle, manifest] = [await bundleOf(g), await manifestOf(g)];
      expect(manifest.playbook).to.deep.equal(bundle.playbook);
      expect(manifest.nodes.map((n: any) => [n.id, n.score, n.reason])).to.deep.equal(bundle.nodes.map((n: any) => [n.id, n.score, n.reason]));
      for (const n of manifest.nodes) {
        expect(n).not.to.have.property('content');
        expect(Object.keys(n)).to.include.members([...baseNodeKeys, 'agentSummary', 'description', 'approxTokens']);
      }
      const byName = Object.fromEntries(manifest.nodes.map((n: any) => [g.name[n.id], n]));
      expect(byName.a).to.include({ agentSummary: 'A summary', description: 'A description', approxTokens: 4 }); // 13 characters
      expect(byName.b).to.include({ agentSummary: 'B summary', description: 'B description', approxTokens: 2 }); // 8 characters
      expect(byName.c).to.include({ description: 'C description', approxTokens: 0 }); // no content
      expect(manifest.truncated).to.equal(false);
      expect(manifest.omittedNodeIds).to.deep.equal([]);
    });

    it('the manifest takes maxNodes and depth like the bundle', async () => {
      const body = await manifestOf(g, { maxNodes: 1, depth: 1 });
      expect(namesOf(g, body)).to.deep.equal(['b']);
      expect(g.names(body.omittedNodeIds)).to.deep.equal(['c', 'a']);
      expect(body.truncated).to.equal(true);
    });

    it('a playbook with no approved version and nothing linked gives an empty bundle with activeVersion null', async () => {
      const other = await createPlaybook(g.workspace, g.workspace.owner.key, { title: 'Nothing linked' });
      const body = (await getBundle(g.workspace, { playbookId: other.id })).body;
      expect(body.playbook).to.deep.equal({
        id: other.id, title: 'Nothing linked', slug: other.slug,
        latestVersion: { id: other.latestVersion.id, versionNumber: 1, status: 'draft' },
        activeVersion: null,
      });
      expect(body.nodes).to.deep.equal([]);
      expect(body.truncated).to.equal(false);
      expect(body.omittedNodeIds).to.deep.equal([]);
    });
  });

  describe('annotations in the bundle', () => {
    let g: Graph;
    let agent: Awaited<ReturnType<typeof createAgent>>;
    const ann: Record<string, string> = {};
    const annotate = async (token: string, targetType: string, targetId: string, scopeType = 'workspace_overlay') => {
      const res = await request('POST', g.workspace.path('/context/annotations'), {
        token, body: { targetType, targetId, scopeType, title: 'Note', content: `about ${targetId}` },
      });
      if (res.status !== 201) throw new Error(`annotate: ${res.status} ${res.text}`);
      return res.body.id as string;
    };
    before(async () => {
      g = await buildGraph(await createWorkspace(), {
        nodes: { a: { importance: 90 }, b: { importance: 10 }, unlinked: {} },
        links: [['pb', 'references', 'a'], ['pb', 'references', 'b']],
      });
      agent = await createAgent(g.workspace);
      const pb = await request('GET', g.workspace.path(`/playbooks/${g.playbookId}`), { token: g.workspace.owner.key });
      const owner = g.workspace.owner.key;
      ann.playbook = await annotate(owner, 'playbook', g.playbookId);
      ann.version = await annotate(owner, 'playbook_version', pb.body.latestVersion.id);
      ann.a = await annotate(owner, 'context_node', g.id.a);
      ann.b = await annotate(owner, 'context_node', g.id.b);
      ann.unlinked = await annotate(owner, 'context_node', g.id.unlinked);
      ann.agentLocal = await annotate(agent.key, 'context_node', g.id.a, 'agent_local');
    });

    it('include those on the playbook, its versions and the returned nodes that the caller may see', async () => {
      const body = await bundleOf(g);
      expect(body.annotations.map((x: any) => x.id)).to.have.members([ann.playbook, ann.version, ann.a, ann.b]);
      const a = body.annotations.find((x: any) => x.id === ann.a);
      expect(a).to.include({ targetType: 'context_node', targetId: g.id.a, scopeType: 'workspace_overlay', content: `about ${g.id.a}`, source: 'human' });
    });

    it('an agent sees its own agent_local annotations besides the workspace overlay', async () => {
      const body = await bundleOf(g, {}, agent.key);
      expect(body.annotations.map((x: any) => x.id)).to.have.members([ann.playbook, ann.version, ann.a, ann.b, ann.agentLocal]);
    });

    it('annotations on nodes cut off by maxNodes are left out', async () => {
      const body = await bundleOf(g, { maxNodes: 1 });
      expect(namesOf(g, body)).to.deep.equal(['a']);
      expect(body.annotations.map((x: any) => x.id)).to.have.members([ann.playbook, ann.version, ann.a]);
    });

    it('includeAnnotations=false gives none', async () => {
      const body = await bundleOf(g, { includeAnnotations: false });
      expect(body.annotations).to.deep.equal([]);
      expect(namesOf(g, body)).to.deep.equal(['a', 'b']);
      expect((await bundleOf(g, { includeAnnotations: true })).annotations).to.have.length(4);
    });
  });

  describe('changedSince', () => {
    let g: Graph;
    let since: string;
    before(async () => {
      g = await buildGraph(await createWorkspace(), {
        nodes: Object.fromEntries([90, 80, 70, 60, 50, 40].map((imp, i) => [`n${i + 1}`, { importance: imp }])),
        links: [1, 2, 3, 4, 5, 6].map((i) => ['pb', 'references', `n${i}`] as ['pb', 'references', string]),
      });
      // read back after linking: the latest updatedAt of any node before the edits
      since = (await Promise.all(Object.values(g.id).filter((i) => i.startsWith('cn_')).map((i) => getNode(g.workspace, i))))
        .map((n) => n.updatedAt as string).sort().at(-1)!;
      for (const n of ['n1', 'n3', 'n4', 'n6']) {
        const updated = await updateNode(g.workspace, g.id[n], { description: 'changed' });
        expect(updated.updatedAt > since, `${n} updated after ${since}`).to.equal(true);
      }
    });

    it('keeps only the nodes updated after it, ranked and scored exactly as without it', async () => {
      const all = await bundleOf(g);
      const changed = await bundleOf(g, { changedSince: since });
      expect(namesOf(g, all)).to.deep.equal(['n1', 'n2', 'n3', 'n4', 'n5', 'n6']);
      expect(namesOf(g, changed)).to.deep.equal(['n1', 'n3', 'n4', 'n6']);
      const unfiltered = Object.fromEntries(all.nodes.map((n: any) => [n.id, n]));
      for (const n of changed.nodes) expect(n).to.deep.equal(unfiltered[n.id]);
      expect(changed.truncated).to.equal(false);
    });

    it('applies before the cap: omittedNodeIds lists only changed nodes beyond it', async () => {
      const body = await bundleOf(g, { changedSince: since, maxNodes: 3 });
      expect(namesOf(g, body)).to.deep.equal(['n1', 'n3', 'n4']);
      expect(g.names(body.omittedNodeIds)).to.deep.equal(['n6']);
      expect(body.truncated).to.equal(true);
    });

    it('a time after every change gives no nodes and nothing omitted', async () => {
      const body = await bundleOf(g, { changedSince: '2999-01-01T00:00:00.000Z', maxNodes: 1 });
      expect(body.nodes).to.deep.equal([]);
      expect(body.omittedNodeIds).to.deep.equal([]);
      expect(body.truncated).to.equal(false);
      expect(body.playbook.id).to.equal(g.playbookId);
    });

    it('a timestamp with a UTC offset means the same moment', async () => {
      const t = new Date(new Date(since).getTime() + 2 * 3600_000).toISOString().replace('Z', '+02:00');
      const body = await bundleOf(g, { changedSince: t });
      expect(namesOf(g, body)).to.deep.equal(['n1', 'n3', 'n4', 'n6']);
    });

    it('the manifest filters the same way', async () => {
      const body = await manifestOf(g, { changedSince: since, maxNodes: 3 });
      expect(namesOf(g, body)).to.deep.equal(['n1', 'n3', 'n4']);
      expect(g.names(body.omittedNodeIds)).to.deep.equal(['n6']);
    });
  });

  describe('depth parameter', () => {
    let g: Graph;
    before(async () => {
      g = await buildGraph(await createWorkspace(), {
        nodes: { d1: {}, d2: {}, d3: {}, d4: {}, d5: {}, d6: {} },
        links: [
          ['pb', 'references', 'd1'], ['d1', 'relates-to', 'd2'], ['d2', 'index-entry', 'd3'],
          ['d3', 'references', 'd4'], ['d4', 'references', 'd5'], ['d5', 'references', 'd6'],
        ],
      });
    });

    it('depth d reaches d hops from the playbook over any link type (default 2, at most 5)', async () => {
      const chain = ['d1', 'd2', 'd3', 'd4', 'd5'];
      for (const depth of [1, 2, 3, 4, 5]) {
        const body = await bundleOf(g, { depth });
        expect(new Set(namesOf(g, body)), `depth ${depth}`).to.deep.equal(new Set(chain.slice(0, depth)));
        for (const n of body.nodes) expect(n.reason.depth).to.equal(Number(g.name[n.id].slice(1)));
      }
      expect(new Set(namesOf(g, await bundleOf(g)))).to.deep.equal(new Set(['d1', 'd2']));
      expect(reasonsOf(g, await bundleOf(g, { depth: 5 }))).to.deep.equal({
        d1: ['references', 'pb', 1], d2: ['relates-to', 'd1', 2], d3: ['index-entry', 'd2', 3],
        d4: ['references', 'd3', 4], d5: ['references', 'd4', 5],
      });
    });
  });

  describe('follow', () => {
    let g: Graph;
    before(async () => {
      g = await buildGraph(await createWorkspace(), {
        nodes: {
          s: {}, req: { importance: 0 }, req2: {}, ref: { importance: 10 }, ref2: { importance: 90 },
          rel: {}, idx: {}, sup: {}, in: {}, d2: {}, d3: {},
          arch: {}, behind_arch: {}, old: { importance: 100 }, archstart: {},
        },
        links: [
          ['s', 'requires', 'req'], ['s', 'references', 'ref'], ['s', 'references', 'ref2'],
          ['s', 'relates-to', 'rel'], ['s', 'index-entry', 'idx'], ['s', 'supersedes', 'sup'],
          ['in', 'references', 's'], ['ref', 'references', 'd2'], ['ref2', 'references', 'd2'],
          ['d2', 'references', 'd3'], ['req', 'requires', 'req2'],
          ['s', 'references', 'arch'], ['arch', 'references', 'behind_arch'],
          ['s', 'references', 'old'], ['ref', 'supersedes', 'old'],
          ['pb', 'references', 's'], // playbooks are never follow results
        ],
        archived: ['arch', 'archstart'],
      });
    });

    it('by default follows every outgoing link one hop, ranked: requires > references > relates-to > index-entry > supersedes, superseded last', async () => {
      const body = await followOf(g, 's');
      expect(body.node).to.deep.equal({ id: g.id.s, title: 's', slug: g.node.s.slug });
      expect(namesOf(g, body)).to.deep.equal(['req', 'ref2', 'ref', 'rel', 'idx', 'old', 'sup']);
      expect(body.nodes[0]).to.deep.equal({
        id: g.id.req, slug: g.node.req.slug, title: 'req', nodeType: 'reference', importance: 0,
        linkType: 'requires', depth: 1, path: [g.id.s, g.id.req], score: 14_999_000, tokenCount: 0,
      });
      const linkType = Object.fromEntries(body.nodes.map((n: any) => [g.name[n.id], n.linkType]));
      expect(linkType).to.deep.equal({
        req: 'requires', ref2: 'references', ref: 'references', rel: 'relates-to', idx: 'index-entry', old: 'references', sup: 'supersedes',
      });
      expectScoresAgreeWithOrder(body.nodes);
      expect(await followOf(g, 's', { direction: 'outgoing', depth: 1 })).to.deep.equal(body);
    });

    it('linkType filters, and depth gives each node its path from the start (smallest predecessor on ties)', async () => {
      let body = await followOf(g, 's', { linkType: 'references', depth: 2 });
      expect(namesOf(g, body)).to.deep.equal(['ref2', 'ref', 'd2', 'old']);
      const via = g.id[g.smallest('ref', 'ref2')];
      expect(body.nodes.find((n: any) => n.id === g.id.d2)).to.include({ depth: 2, linkType: 'references' });
      expect(body.nodes.find((n: any) => n.id === g.id.d2).path).to.deep.equal([g.id.s, via, g.id.d2]);
      body = await followOf(g, 's', { linkType: 'references', depth: 3 });
      expect(body.nodes.find((n: any) => n.id === g.id.d3)).to.deep.include({ depth: 3, path: [g.id.s, via, g.id.d2, g.id.d3] });
    });

    it('linkType may be repeated', async () => {
      const body = await followOf(g, 's', { linkType: ['requires', 'index-entry'] });
      expect(namesOf(g, body)).to.deep.equal(['req', 'idx']);
    });

    it('supersedes links are walked when asked for', async () => {
      const body = await followOf(g, 's', { linkType: 'supersedes' });
      expect(namesOf(g, body)).to.deep.equal(['sup']);
      expect(body.nodes[0]).to.include({ linkType: 'supersedes', depth: 1 });
    });

    it('depth bounds every link type, requires included', async () => {
      expect(namesOf(g, await followOf(g, 's', { linkType: 'requires' }))).to.deep.equal(['req']);
      const body = await followOf(g, 's', { linkType: 'requires', depth: 2 });
      expect(namesOf(g, body)).to.deep.equal(['req', 'req2']);
      expect(body.nodes[1]).to.deep.include({ depth: 2, linkType: 'requires', path: [g.id.s, g.id.req, g.id.req2] });
    });

    it('archived nodes are neither returned nor walked through', async () => {
      const body = await followOf(g, 's', { depth: 5, direction: 'both' });
      for (const n of ['arch', 'behind_arch', 'archstart', 's']) expect(namesOf(g, body)).not.to.include(n);
      expect(namesOf(g, body)).to.include.members(['req', 'req2', 'ref', 'ref2', 'd2', 'd3', 'in']);
    });

    it('maxNodes caps the ranked list', async () => {
      const body = await followOf(g, 's', { linkType: 'references', depth: 2, maxNodes: 2 });
      expect(namesOf(g, body)).to.deep.equal(['ref2', 'ref']);
    });

    it('direction incoming follows links backwards; playbooks are never results', async () => {
      const body = await followOf(g, 's', { direction: 'incoming' });
      expect(namesOf(g, body)).to.deep.equal(['in']);
      expect(body.nodes[0]).to.deep.include({ linkType: 'references', depth: 1, path: [g.id.s, g.id.in] });
    });

    it('direction both follows links either way, keeping each link’s own type', async () => {
      const body = await followOf(g, 'ref', { direction: 'both', linkType: 'references' });
      expect(namesOf(g, body)).to.deep.equal(g.order([['d2', 's']]));
      expect(body.nodes.map((n: any) => n.linkType)).to.deep.equal(['references', 'references']);
    });

    it('an unknown, archived or foreign start node is 404', async () => {
      problem(await getFollow(g.workspace, 'cn_doesnotexist'), 404, 'not_found');
      problem(await getFollow(g.workspace, g.id.archstart), 404, 'not_found');
      const other = await createWorkspace();
      problem(await getFollow(other, g.id.s), 404, 'not_found');
    });
  });

  describe('updates', () => {
    let w: TestWorkspace;
    const id: Record<string, string> = {};
    before(async () => {
      w = await createWorkspace();
      for (const n of ['a', 'b', 'c']) id[n] = (await createNode(w, { title: n })).id;
      await updateNode(w, id.a, { description: 'edited' });
      await archiveNode(w, id.b);
    });

    const stored = async () => Promise.all(['a', 'b', 'c'].map(async (n) => ({ name: n, ...(await getNode(w, id[n])) })));
    const byTime = (xs: any[]) => [...xs].sort((x, y) => (x.updatedAt < y.updatedAt ? -1 : x.updatedAt > y.updatedAt ? 1 : x.id < y.id ? -1 : 1));

    it('lists the nodes updated after `since`, oldest first, archived ones with status archived', async () => {
      const res = await getUpdates(w, { since: '2000-01-01T00:00:00.000Z' });
      expect(res.status).to.equal(200);
      const nodes = byTime(await stored());
      expect(nodes.map((n) => n.name)).to.deep.equal(['c', 'a', 'b']);
      expect(res.body.nodes).to.deep.equal(nodes.map((n) => ({ id: n.id, slug: n.slug, title: n.title, status: n.status, updatedAt: n.updatedAt })));
      expect(res.body.nodes.find((n: any) => n.id === id.b).status).to.equal('archived');
      expect(res.body.until).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(res.body.until >= nodes[2].updatedAt).to.equal(true);
    });

    it('leaves out nodes updated at or before `since`', async () => {
      const nodes = byTime(await stored());
      const res = await getUpdates(w, { since: nodes[0].updatedAt });
      expect(res.body.nodes.map((n: any) => n.id)).to.deep.equal([nodes[1].id, nodes[2].id]);
      expect((await getUpdates(w, { since: '2999-01-01T00:00:00.000Z' })).body.nodes).to.deep.equal([]);
      const offset = new Date(new Date(nodes[0].updatedAt).getTime() - 5 * 3600_000).toISOString().replace('Z', '-05:00');
      expect((await getUpdates(w, { since: offset })).body.nodes.map((n: any) => n.id)).to.deep.equal([nodes[1].id, nodes[2].id]);
    });

    it('limit keeps the oldest; asking again from `until` gives the rest, and then nothing', async () => {
      const nodes = byTime(await stored());
      const first = await getUpdates(w, { since: '2000-01-01T00:00:00.000Z', limit: 2 });
      expect(first.body.nodes.map((n: any) => n.id)).to.deep.equal([nodes[0].id, nodes[1].id]);
      const rest = await getUpdates(w, { since: first.body.until, limit: 2 });
      expect(rest.body.nodes.map((n: any) => n.id)).to.deep.equal([nodes[2].id]);
      const none = await getUpdates(w, { since: rest.body.until });
      expect(none.body.nodes).to.deep.equal([]);
      expect((await getUpdates(w, { since: '2000-01-01T00:00:00.000Z', limit: 1000 })).body.nodes).to.have.length(3);
    });

    it('only shows this workspace’s nodes', async () => {
      const other = await createWorkspace();
      await createNode(other, { title: 'elsewhere' });
      const res = await getUpdates(w, { since: '2000-01-01T00:00:00.000Z' });
      expect(res.body.nodes.map((n: any) => n.id)).to.have.members(Object.values(id));
    });

    it('since is required and must be a timestamp; limit is 1 to 1000', async () => {
      expect(problem(await getUpdates(w, {}), 400, 'invalid_request').errors![0]).to.include({ path: '/since', in: 'query' });
      expect(problem(await getUpdates(w, { since: 'yesterday' }), 400).errors![0]).to.include({ path: '/since' });
      expect(problem(await getUpdates(w, { since: '2026-01-01T00:00:00.000Z', limit: 0 }), 400).errors![0]).to.include({ path: '/limit' });
      expect(problem(await getUpdates(w, { since: '2026-01-01T00:00:00.000Z', limit: 1001 }), 400).errors![0]).to.include({ path: '/limit' });
      expect(problem(await getUpdates(w, { since: '2026-01-01T00:00:00.000Z', verbose: 1 }), 400).errors![0]).to.include({ path: '/verbose' });
    });
  });

  describe('validation', () => {
    let g: Graph;
    before(async () => {
      g = await buildGraph(await createWorkspace(), {
        playbooks: ['pb', 'pb_arch'],
        nodes: { a: {} },
        links: [['pb', 'references', 'a']],
        archivedPlaybooks: ['pb_arch'],
      });
    });

    const cases: [string, Record<string, string | number>, string][] = [
      ['an unknown parameter', { verbose: 1 }, '/verbose'],
      ['maxNodes 0', { maxNodes: 0 }, '/maxNodes'],
      ['maxNodes 101', { maxNodes: 101 }, '/maxNodes'],
      ['maxNodes that is not a number', { maxNodes: 'ten' }, '/maxNodes'],
      ['depth 0', { depth: 0 }, '/depth'],
      ['depth 6', { depth: 6 }, '/depth'],
      ["mode 'deep'", { mode: 'deep' }, '/mode'],
      ['a changedSince that is not a timestamp', { changedSince: 'yesterday' }, '/changedSince'],
      ['an includeAnnotations that is not a boolean', { includeAnnotations: 'maybe' }, '/includeAnnotations'],
    ];
    for (const [what, query, path] of cases) {
      it(`the bundle answers 400 to ${what}`, async () => {
        const body = problem(await getBundle(g.workspace, { playbookId: g.playbookId, ...query }), 400, 'invalid_request');
        expect(body.errors![0]).to.include({ path, in: 'query' });
      });
    }

    it('bundle and manifest need a playbookId (400)', async () => {
      expect(problem(await getBundle(g.workspace, {}), 400, 'invalid_request').errors![0]).to.include({ path: '/playbookId' });
      expect(problem(await getManifest(g.workspace, {}), 400, 'invalid_request').errors![0]).to.include({ path: '/playbookId' });
    });

    it('the manifest validates maxNodes, depth and changedSince like the bundle', async () => {
      for (const [query, path] of [[{ maxNodes: 101 }, '/maxNodes'], [{ depth: 6 }, '/depth'], [{ changedSince: 'soon' }, '/changedSince'], [{ verbose: 1 }, '/verbose']] as const) {
        expect(problem(await getManifest(g.workspace, { playbookId: g.playbookId, ...query }), 400).errors![0]).to.include({ path });
      }
    });

    it('an unknown, archived or other workspace’s playbook is 404 for bundle and manifest', async () => {
      const other = await createWorkspace();
      const foreign = await createPlaybook(other, other.owner.key);
      for (const playbookId of ['pb_doesnotexist', g.id.pb_arch, foreign.id]) {
        problem(await getBundle(g.workspace, { playbookId }), 404, 'not_found');
        problem(await getManifest(g.workspace, { playbookId }), 404, 'not_found');
      }
    });

    it('a playbook’s slug names it for bundle and manifest as its id does; an unknown, archived or other workspace’s slug is 404', async () => {
      const slugOf = async (w: TestWorkspace, id: string) => (await request('GET', w.path(`/playbooks/${id}`), { token: w.owner.key })).body.slug as string;
      const slug = await slugOf(g.workspace, g.playbookId);
      for (const get of [getBundle, getManifest]) {
        const byId = await get(g.workspace, { playbookId: g.playbookId });
        const bySlug = await get(g.workspace, { playbookId: slug });
        expect(bySlug.status, bySlug.text).to.equal(200);
        expect(bySlug.body).to.deep.equal(byId.body);
      }
      const other = await createWorkspace();
      const foreign = await createPlaybook(other, other.owner.key);
      for (const playbookId of ['no-such-playbook', await slugOf(g.workspace, g.id.pb_arch), foreign.slug]) {
        problem(await getBundle(g.workspace, { playbookId }), 404, 'not_found');
        problem(await getManifest(g.workspace, { playbookId }), 404, 'not_found');
      }
    });

    it('follow answers 400 to a bad depth, direction, linkType or maxNodes', async () => {
      for (const [query, path] of [
        [{ depth: 6 }, '/depth'], [{ depth: 0 }, '/depth'], [{ direction: 'sideways' }, '/direction'],
        [{ linkType: 'friends' }, '/linkType/0'], [{ maxNodes: 0 }, '/maxNodes'], [{ verbose: 1 }, '/verbose'],
      ] as const) {
        const body = problem(await getFollow(g.workspace, g.id.a, query), 400, 'invalid_request');
        expect(body.errors![0].path, JSON.stringify(query)).to.match(new RegExp(`^${path.replace(/\/0$/, '')}`));
      }
    });
  });

  describe('who may retrieve', () => {
    let g: Graph;
    before(async () => {
      g = await buildGraph(await createWorkspace(), {
        nodes: { a: { readFirst: true }, b: {}, c: {} },
        links: [['pb', 'requires', 'b'], ['b', 'references', 'c']],
      });
    });

    it('a viewer gets the same bundle, manifest, follow and updates as the owner', async () => {
      const viewer = await addMember(g.workspace, 'viewer');
      expect(await bundleOf(g, {}, viewer.key)).to.deep.equal(await bundleOf(g));
      expect(await manifestOf(g, {}, viewer.key)).to.deep.equal(await manifestOf(g));
      expect(await followOf(g, 'b', {}, viewer.key)).to.deep.equal(await followOf(g, 'b'));
      const since = { since: '2000-01-01T00:00:00.000Z' };
      expect((await getUpdates(g.workspace, since, viewer.key)).body.nodes).to.deep.equal((await getUpdates(g.workspace, since)).body.nodes);
    });

    it('an agent key retrieves too', async () => {
      const agent = await createAgent(g.workspace);
      const body = await bundleOf(g, {}, agent.key);
      expect(namesOf(g, body)).to.deep.equal(['a', 'b', 'c']);
      expect(reasonsOf(g, body)).to.deep.equal({ a: ['read-first', null, 1], b: ['requires', 'pb', 1], c: ['references', 'b', 2] });
      expect(namesOf(g, await manifestOf(g, {}, agent.key))).to.deep.equal(['a', 'b', 'c']);
      expect(namesOf(g, await followOf(g, 'b', {}, agent.key))).to.deep.equal(['c']);
      expect((await getUpdates(g.workspace, { since: '2000-01-01T00:00:00.000Z' }, agent.key)).status).to.equal(200);
    });

    it('someone outside the workspace gets 404', async () => {
      const stranger = await createUser();
      problem(await getBundle(g.workspace, { playbookId: g.playbookId }, stranger.key), 404, 'not_found');
      problem(await getFollow(g.workspace, g.id.b, {}, stranger.key), 404, 'not_found');
      problem(await getUpdates(g.workspace, { since: '2000-01-01T00:00:00.000Z' }, stranger.key), 404, 'not_found');
    });
  });
});

describe('updates when many nodes change in the same millisecond', () => {
  it('a run of equal timestamps larger than the page comes whole, so paging skips nothing', async () => {
    const frozen = new Date('2030-03-03T03:03:03.333Z');
    const service = await startExtraService({}, { clock: () => frozen });
    try {
      const w = await createWorkspace();
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await request('POST', w.path('/context-nodes'), { token: w.owner.key, body: { title: `Same ms ${i}`, description: 'd' }, baseUrl: service.url });
        expect(res.status).to.equal(201);
        ids.push(res.body.id);
      }
      const page = await request('GET', w.path('/context/updates?since=2030-01-01T00:00:00.000Z&limit=2'), { token: w.owner.key });
      expect(page.status).to.equal(200);
      expect(page.body.nodes.map((n: { id: string }) => n.id)).to.have.members(ids);
      expect(page.body.until).to.equal(frozen.toISOString());
      const next = await request('GET', w.path(`/context/updates?since=${page.body.until}&limit=2`), { token: w.owner.key });
      expect(next.body.nodes).to.deep.equal([]);
    } finally {
      await service.stop();
    }
  });
});
