import { expect } from 'chai';
import { createWorkspace, problem, request } from '../support/api.js';
import { archiveNode, createNode, linkPlaybook, restoreNode, updateNode } from '../support/nodes.js';
import {
  type Graph,
  buildGraph,
  bundleOf,
  expectScoresAgreeWithOrder,
  getBundle,
  namesOf,
  reasonsOf,
} from '../support/retrieval.js';

// The eight ranking rules of docs/api.md ("Retrieval"), each on a graph built for it through the API. Ids are generated, so nodes that tie on everything but
// the id are written as a group ([a, b]) and ordered by their real ids.

describe('retrieval ranking (bundle)', () => {
  describe('rule 1: candidates', () => {
    let g: Graph;
    before(async () => {
      g = await buildGraph(await createWorkspace(), {
        nodes: {
          a: { importance: 60 }, b: { importance: 50 }, c: {},
          rf: { readFirst: true, importance: 10 }, rf2: {}, rf3: {}, unlinked: {},
        },
        links: [
          ['pb', 'references', 'a'], ['a', 'references', 'b'], ['b', 'references', 'c'],
          ['rf', 'references', 'rf2'], ['rf2', 'references', 'rf3'],
        ],
      });
      // a readFirst node of another workspace is never a candidate
      await createNode(await createWorkspace(), { title: 'foreign read-first', readFirst: true });
    });

    it('depth 1 gives the readFirst nodes and the nodes linked from the playbook', async () => {
      const body = await bundleOf(g, { depth: 1 });
      expect(namesOf(g, body)).to.deep.equal(['rf', 'a']);
      expectScoresAgreeWithOrder(body.nodes);
    });

    it('the default depth (2) adds what those nodes link to, from the playbook and from readFirst seeds alike', async () => {
      const body = await bundleOf(g);
      expect(namesOf(g, body)).to.deep.equal(g.order(['rf', 'a', ['b', 'rf2']]));
      expect(await bundleOf(g, { depth: 2 })).to.deep.equal(body);
      expectScoresAgreeWithOrder(body.nodes);
    });

    it('depth 3 reaches one hop further; unlinked nodes and other workspaces never come in', async () => {
      const body = await bundleOf(g, { depth: 3 });
      expect(namesOf(g, body)).to.deep.equal(g.order(['rf', 'a', ['b', 'rf2'], ['c', 'rf3']]));
      expect(body.truncated).to.equal(false);
      expect(body.omittedNodeIds).to.deep.equal([]);
    });

    it('each node says how it got in: the kind of the last link, where it came from, and its depth', async () => {
      const body = await bundleOf(g, { depth: 3 });
      expect(reasonsOf(g, body)).to.deep.equal({
        rf: ['read-first', null, 1],
        a: ['references', 'pb', 1],
        b: ['references', 'a', 2],
        rf2: ['references', 'rf', 2],
        c: ['references', 'b', 3],
        rf3: ['references', 'rf2', 3],
      });
      for (const n of body.nodes) expect(Object.keys(n.reason)).to.have.members(['kind', 'fromId', 'depth']);
      expect(body.nodes.find((n: any) => n.id === g.id.a).reason).to.deep.equal({ kind: 'references', fromId: g.playbookId, depth: 1 });
    });
  });

  describe('rule 2: requires is followed at any depth and is mandatory', () => {
    let g: Graph;
    before(async () => {
      g = await buildGraph(await createWorkspace(), {
        nodes: {
          rf: { readFirst: true, importance: 0 }, p1: { importance: 0 },
          ref_lo: { importance: 10 }, ref_hi: { importance: 100 },
          q1: { importance: 0 }, q2: { importance: 0 }, q3: {}, q4: {},
          beyond: {}, rfq: {},
        },
        links: [
          ['pb', 'requires', 'p1'], ['pb', 'references', 'ref_lo'], ['pb', 'references', 'ref_hi'],
          ['ref_lo', 'requires', 'q1'], ['q1', 'requires', 'q2'], ['q2', 'requires', 'q3'],
          ['q3', 'requires', 'q4'], ['q4', 'requires', 'q1'], // a cycle must terminate
          ['q4', 'references', 'beyond'], // beyond depth only requires is followed
          ['rf', 'requires', 'rfq'], // the closure of a readFirst seed
        ],
      });
    });

    it('mandatory nodes (readFirst, requires closure) rank above every optional one, whatever its importance', async () => {
      const body = await bundleOf(g, { depth: 1 });
      expect(namesOf(g, body)).to.deep.equal(['rf', 'p1', 'rfq', 'q1', 'q2', 'q3', 'q4', 'ref_hi', 'ref_lo']);
      expectScoresAgreeWithOrder(body.nodes);
    });

    it('requires chains are followed beyond depth and through cycles; other links beyond depth are not', async () => {
      const body = await bundleOf(g, { depth: 1 });
      expect(namesOf(g, body)).not.to.include('beyond');
      const reasons = reasonsOf(g, body);
      expect(reasons).to.deep.include({
        rf: ['read-first', null, 1],
        p1: ['requires', 'pb', 1],
        q1: ['requires', 'ref_lo', 2],
        rfq: ['requires', 'rf', 2],
        q4: ['requires', 'q3', 5],
        ref_hi: ['references', 'pb', 1],
      });
    });
  });

  describe('rule 2: requires chains far longer than depth', () => {
    let g: Graph;
    const chain = ['l01', 'l02', 'l03', 'l04', 'l05', 'l06', 'l07', 'l08', 'l09a', 'l09b', 'l10', 'l11', 'l12', 'lx'];
    before(async () => {
      g = await buildGraph(await createWorkspace(), {
        nodes: Object.fromEntries(chain.map((n) => [n, {}])),
        links: [
          ['pb', 'requires', 'l01'], ['l01', 'requires', 'l02'], ['l02', 'requires', 'l03'], ['l03', 'requires', 'l04'],
          ['l04', 'requires', 'l05'], ['l05', 'requires', 'l06'], ['l06', 'requires', 'l07'], ['l07', 'requires', 'l08'],
          ['l08', 'requires', 'l09b'], ['l08', 'requires', 'l09a'], ['l09b', 'requires', 'l10'], ['l09a', 'requires', 'l10'],
          ['l10', 'requires', 'l11'], ['l11', 'requires', 'l12'], ['l12', 'references', 'lx'],
          ['l11', 'supersedes', 'l03'], // superseded from deep inside the closure
        ],
      });
    });

    for (const depth of [1, 5]) {
      it(`a 12-hop requires chain comes in whole at depth ${depth}; a diamond resolves to the smallest fromId`, async () => {
        const body = await bundleOf(g, { depth });
        expect(namesOf(g, body)).to.deep.equal(
          g.order(['l01', 'l02', 'l04', 'l05', 'l06', 'l07', 'l08', ['l09a', 'l09b'], 'l10', 'l11', 'l12', 'l03']),
        );
        expect(reasonsOf(g, body)).to.deep.include({
          l10: ['requires', g.smallest('l09a', 'l09b'), 10],
          l12: ['requires', 'l11', 12],
          l03: ['requires', 'l02', 3],
          l09b: ['requires', 'l08', 9],
        });
        expectScoresAgreeWithOrder(body.nodes);
      });
    }
  });

  describe('rule 3: link kind, then depth, then importance', () => {
    let g: Graph;
    before(async () => {
      g = await buildGraph(await createWorkspace(), {
        nodes: {
          ref1: { importance: 10 }, ref_b: { importance: 60 }, ref2: { importance: 100 },
          rel1: { importance: 90 }, rel2: { importance: 100 }, idx1: { importance: 100 },
          x: { importance: 0 }, y: { importance: 0 },
        },
        links: [
          ['pb', 'references', 'ref1'], ['pb', 'references', 'ref_b'], ['pb', 'relates-to', 'rel1'],
          ['pb', 'index-entry', 'idx1'], ['ref1', 'references', 'ref2'], ['ref1', 'relates-to', 'rel2'],
          // x: relates-to at depth 1, references at depth 2 from two nodes -> references/2 from the smaller id
          ['pb', 'relates-to', 'x'], ['ref_b', 'references', 'x'], ['ref1', 'references', 'x'],
          // y: index-entry straight from the playbook and relates-to at depth 2 -> relates-to/2
          ['pb', 'index-entry', 'y'], ['idx1', 'relates-to', 'y'],
        ],
      });
    });

    it('references rank above relates-to above index-entry; a deeper node falls below a shallower one of its kind; importance orders the rest', async () => {
      const body = await bundleOf(g);
      expect(namesOf(g, body)).to.deep.equal(['ref_b', 'ref1', 'ref2', 'x', 'rel1', 'rel2', 'y', 'idx1']);
      expectScoresAgreeWithOrder(body.nodes);
    });

    it('a node reached several ways is ranked by its best path: the highest kind, then the fewest hops', async () => {
      const reasons = reasonsOf(g, await bundleOf(g));
      expect(reasons.x).to.deep.equal(['references', g.smallest('ref1', 'ref_b'), 2]);
      expect(reasons.y).to.deep.equal(['relates-to', 'idx1', 2]);
      expect(reasons.idx1).to.deep.equal(['index-entry', 'pb', 1]);
      expect(reasons.rel1).to.deep.equal(['relates-to', 'pb', 1]);
    });
  });

  describe('rule 4: superseded nodes rank last', () => {
    let g: Graph;
    before(async () => {
      g = await buildGraph(await createWorkspace(), {
        nodes: {
          old: { importance: 100 }, new: { importance: 10 }, low: { importance: 0 },
          gone: {}, iso: {}, kept: { importance: 5 }, archived_sup: {}, pbsup: { importance: 100 },
        },
        links: [
          ['pb', 'requires', 'old'], ['pb', 'references', 'new'], ['pb', 'index-entry', 'low'],
          ['new', 'supersedes', 'old'],
          ['new', 'supersedes', 'gone'], // supersedes brings nothing in
          ['pb', 'relates-to', 'kept'], ['iso', 'supersedes', 'kept'], // iso is not a candidate: no effect
          ['archived_sup', 'supersedes', 'kept'], // archived: no effect
          ['pb', 'references', 'pbsup'], ['pb', 'supersedes', 'pbsup'], // the playbook itself supersedes
        ],
        archived: ['archived_sup'],
      });
    });

    it('a node a candidate or the playbook supersedes ranks below every other node, even a mandatory one', async () => {
      const body = await bundleOf(g);
      expect(namesOf(g, body)).to.deep.equal(['new', 'kept', 'low', 'old', 'pbsup']);
      expectScoresAgreeWithOrder(body.nodes);
      const score = Object.fromEntries(body.nodes.map((n: any) => [g.name[n.id], n.score]));
      expect(score.old).to.be.below(score.low);
    });

    it('a superseded node keeps its reason; supersedes links bring nothing in, and only candidates supersede', async () => {
      const body = await bundleOf(g);
      expect(reasonsOf(g, body).old).to.deep.equal(['requires', 'pb', 1]);
      expect(namesOf(g, body)).not.to.include('gone');
      expect(namesOf(g, body)).not.to.include('iso');
      expect(namesOf(g, body)).not.to.include('archived_sup');
    });
  });

  describe('rule 5: edge-case nodes', () => {
    let g: Graph;
    before(async () => {
      g = await buildGraph(await createWorkspace(), {
        nodes: {
          e1: { edgeCaseOnly: true }, a: {}, e2: { edgeCaseOnly: true }, e3: { edgeCaseOnly: true },
          behind_e2: {}, e4: { edgeCaseOnly: true, readFirst: true }, e5: { edgeCaseOnly: true },
        },
        links: [
          ['pb', 'relates-to', 'e1'], ['pb', 'references', 'a'], ['a', 'references', 'e2'],
          ['a', 'requires', 'e3'], ['e2', 'references', 'behind_e2'],
          ['a', 'relates-to', 'e5'], ['e1', 'requires', 'e5'],
        ],
      });
    });

    it('come in only straight from the playbook or through requires, and are not walked through otherwise', async () => {
      const body = await bundleOf(g, { depth: 3 });
      expect(namesOf(g, body)).to.deep.equal(g.order([['e3', 'e5'], 'a', 'e1']));
      expect(reasonsOf(g, body)).to.deep.include({
        e5: ['requires', 'e1', 2],
        e3: ['requires', 'a', 2],
        e1: ['relates-to', 'pb', 1],
      });
      for (const n of body.nodes) expect(n.edgeCaseOnly).to.equal(['e1', 'e3', 'e5'].includes(g.name[n.id]));
    });

    it('an edge-case node marked readFirst is not a read-first seed', async () => {
      const body = await bundleOf(g, { depth: 3 });
      expect(namesOf(g, body)).not.to.include('e4');
      expect(namesOf(g, body)).not.to.include('e2');
      expect(namesOf(g, body)).not.to.include('behind_e2');
    });
  });

  describe('rule 6: archived nodes and links through them', () => {
    let g: Graph;
    before(async () => {
      g = await buildGraph(await createWorkspace(), {
        playbooks: ['pb', 'pb_arch'],
        nodes: { arch: {}, behind: {}, a: {}, arch2: {}, behind2: {}, rf_arch: { readFirst: true } },
        links: [
          ['pb', 'references', 'arch'], ['arch', 'requires', 'behind'],
          ['pb', 'requires', 'a'], ['a', 'requires', 'arch2'], ['arch2', 'requires', 'behind2'],
          ['pb_arch', 'references', 'a'],
        ],
        archived: ['arch', 'arch2', 'rf_arch'],
        archivedPlaybooks: ['pb_arch'],
      });
    });

    it('archived nodes never come in, readFirst or not, and nothing is reached through them even by requires', async () => {
      const body = await bundleOf(g, { depth: 5 });
      expect(namesOf(g, body)).to.deep.equal(['a']);
      expect(body.omittedNodeIds).to.deep.equal([]);
    });

    it('the bundle of an archived playbook is 404', async () => {
      problem(await getBundle(g.workspace, { playbookId: g.id.pb_arch }), 404, 'not_found');
    });

    it('restoring an archived node brings it, and what lies behind it, back', async () => {
      const h = await buildGraph(await createWorkspace(), {
        nodes: { arch: {}, behind: {} },
        links: [['pb', 'references', 'arch'], ['arch', 'requires', 'behind']],
        archived: ['arch'],
      });
      expect(namesOf(h, await bundleOf(h))).to.deep.equal([]);
      await restoreNode(h.workspace, h.id.arch);
      const body = await bundleOf(h);
      expect(namesOf(h, body)).to.deep.equal(['behind', 'arch']);
      expect(reasonsOf(h, body).behind).to.deep.equal(['requires', 'arch', 2]);
    });
  });

  describe('rule 7: determinism', () => {
    let g: Graph;
    before(async () => {
      g = await buildGraph(await createWorkspace(), {
        nodes: { d: {}, b: {}, c: {}, a: {} },
        links: [['pb', 'references', 'd'], ['pb', 'references', 'b'], ['pb', 'references', 'c'], ['pb', 'references', 'a']],
      });
    });

    it('nodes that tie on kind, depth and importance come in ascending id order', async () => {
      const body = await bundleOf(g);
      const ids = body.nodes.map((n: any) => n.id);
      expect(ids).to.deep.equal([...ids].sort());
      expect(ids).to.have.members(['a', 'b', 'c', 'd'].map((n) => g.id[n]));
      expect(new Set(body.nodes.map((n: any) => n.score)).size).to.equal(1);
    });

    it('the same request twice gives the same body', async () => {
      const first = await bundleOf(g, { mode: 'full' });
      const second = await bundleOf(g, { mode: 'full' });
      expect(second).to.deep.equal(first);
    });
  });

  describe('freshness', () => {
    it('every change to nodes and links shows in the next bundle', async () => {
      const g = await buildGraph(await createWorkspace(), {
        nodes: { a: { importance: 10 }, b: { importance: 20 }, c: {} },
        links: [['pb', 'references', 'a'], ['pb', 'references', 'b']],
      });
      expect(namesOf(g, await bundleOf(g))).to.deep.equal(['b', 'a']);
      await updateNode(g.workspace, g.id.a, { importance: 30 });
      expect(namesOf(g, await bundleOf(g))).to.deep.equal(['a', 'b']);
      const toC = await linkPlaybook(g.workspace, g.playbookId, g.id.c, 'requires');
      expect(namesOf(g, await bundleOf(g))).to.deep.equal(['c', 'a', 'b']);
      const removed = await request('DELETE', g.workspace.path(`/playbooks/${g.playbookId}/links/${toC.id}`), { token: g.workspace.owner.key });
      expect(removed.status).to.equal(204);
      expect(namesOf(g, await bundleOf(g))).to.deep.equal(['a', 'b']);
      await archiveNode(g.workspace, g.id.b);
      expect(namesOf(g, await bundleOf(g))).to.deep.equal(['a']);
    });

    it('approving a version shows in the next bundle, and archiving the playbook makes it 404', async () => {
      const g = await buildGraph(await createWorkspace(), { nodes: { a: {} }, links: [['pb', 'references', 'a']] });
      const owner = g.workspace.owner.key;
      const first = await bundleOf(g);
      expect(first.playbook.activeVersion).to.equal(null);
      const versionId = first.playbook.latestVersion.id;
      const approved = await request('PATCH', g.workspace.path(`/playbooks/${g.playbookId}/versions/${versionId}/approve`), { token: owner });
      expect(approved.status).to.equal(200);
      const after = await bundleOf(g);
      expect(after.playbook.latestVersion).to.deep.equal({ id: versionId, versionNumber: 1, status: 'approved' });
      expect(after.playbook.activeVersion).to.deep.include({ id: versionId, versionNumber: 1, status: 'approved', content: approved.body.content });
      const archived = await request('DELETE', g.workspace.path(`/playbooks/${g.playbookId}`), { token: owner });
      expect(archived.status).to.be.oneOf([200, 204]);
      problem(await getBundle(g.workspace, { playbookId: g.playbookId }), 404, 'not_found');
    });
  });

  describe('rule 8: maxNodes is a hard cap', () => {
    let g: Graph;
    before(async () => {
      g = await buildGraph(await createWorkspace(), {
        nodes: Object.fromEntries([90, 80, 70, 60, 50, 40].map((imp, i) => [`n${i + 1}`, { importance: imp }])),
        links: [1, 2, 3, 4, 5, 6].map((i) => ['pb', 'references', `n${i}`] as ['pb', 'references', string]),
      });
    });

    it('what the cap cuts off is listed in omittedNodeIds, in rank order, and truncated is true', async () => {
      const body = await bundleOf(g, { maxNodes: 3 });
      expect(namesOf(g, body)).to.deep.equal(['n1', 'n2', 'n3']);
      expect(g.names(body.omittedNodeIds)).to.deep.equal(['n4', 'n5', 'n6']);
      expect(body.truncated).to.equal(true);
    });

    it('maxNodes 1 keeps only the best node', async () => {
      const body = await bundleOf(g, { maxNodes: 1 });
      expect(namesOf(g, body)).to.deep.equal(['n1']);
      expect(g.names(body.omittedNodeIds)).to.deep.equal(['n2', 'n3', 'n4', 'n5', 'n6']);
    });

    it('a cap at or above the number of candidates cuts nothing', async () => {
      for (const maxNodes of [6, 100]) {
        const body = await bundleOf(g, { maxNodes });
        expect(namesOf(g, body)).to.deep.equal(['n1', 'n2', 'n3', 'n4', 'n5', 'n6']);
        expect(body.truncated).to.equal(false);
        expect(body.omittedNodeIds).to.deep.equal([]);
      }
    });

    it('the default cap is 20 nodes', async () => {
      const h = await buildGraph(await createWorkspace(), {
        nodes: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`m${i}`, { importance: 100 - i }])),
        links: Array.from({ length: 21 }, (_, i) => ['pb', 'references', `m${i}`] as ['pb', 'references', string]),
      });
      const body = await bundleOf(h);
      expect(namesOf(h, body)).to.deep.equal(Array.from({ length: 20 }, (_, i) => `m${i}`));
      expect(h.names(body.omittedNodeIds)).to.deep.equal(['m20']);
      expect(body.truncated).to.equal(true);
    });
  });

  describe('scores', () => {
    it('score = notSuperseded·10^7 + kind·10^6 + (1000 − depth)·10^3 + importance', async () => {
      const g = await buildGraph(await createWorkspace(), {
        nodes: { rf: { readFirst: true, importance: 7 }, req: { importance: 0 }, ref: { importance: 90 }, rel: {}, idx: { importance: 100 }, old: { importance: 3 } },
        links: [
          ['pb', 'requires', 'req'], ['pb', 'references', 'ref'], ['ref', 'relates-to', 'rel'], ['pb', 'index-entry', 'idx'],
          ['pb', 'references', 'old'], ['ref', 'supersedes', 'old'],
        ],
      });
      const body = await bundleOf(g);
      const scores = Object.fromEntries(body.nodes.map((n: any) => [g.name[n.id], n.score]));
      expect(scores).to.deep.equal({
        rf: 15_999_007,
        req: 14_999_000,
        ref: 13_999_090,
        rel: 12_998_050,
        idx: 11_999_100,
        old: 3_999_003,
      });
      expect(namesOf(g, body)).to.deep.equal(['rf', 'req', 'ref', 'rel', 'idx', 'old']);
    });
  });
});
