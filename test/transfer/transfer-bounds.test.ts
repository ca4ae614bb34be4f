import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { Neo4jError } from 'neo4j-driver';
import { AppError } from '../../src/errors.js';
import { QueryCatalog } from '../../src/infra/cypher-files.js';
import { isIdOf, newId } from '../../src/infra/ids.js';
import { loadMigrations } from '../../src/infra/migrations.js';
import type { GraphTx } from '../../src/infra/neo4j.js';
import { linkTypeParams } from '../../src/nodes/link-types.js';
import { checkSize } from '../../src/transfer/import-check.js';
import { maxBatchUnits } from '../../src/transfer/import-plan.js';
import { type ExportDoc, maxImportItems } from '../../src/transfer/schemas.js';
import { createWorkspace, problem, request } from '../support/api.js';
import { sharedGraph, storedRows } from '../support/neo4j.js';
import { createNode, linkPlaybook } from '../support/nodes.js';
import { createPlaybook } from '../support/playbooks.js';
import { exportedDoc, importInto } from '../support/transfer.js';

const at = '2026-01-02T03:04:05.678Z';

const node = (id: string, slug: string, content = '') => ({
  id, slug, title: `Title of ${slug}`, description: `About ${slug}`, content, nodeType: 'reference', agentSummary: null, importance: 50, readFirst: false,
  edgeCaseOnly: false, status: 'live', createdAt: at, updatedAt: at, archivedAt: null,
});
const playbook = (id: string, slug: string, versionIds: string[]) => ({
  id, slug, title: `Playbook ${slug}`, summary: null, description: null, functionArea: null, visibility: 'workspace_private', ownerId: 'usr_elsewhere', tags: [],
  createdAt: at, updatedAt: at, archivedAt: null,
  versions: versionIds.map((vid, i) => ({ id: vid, versionNumber: i + 1, status: 'draft', content: { instructions: `Step ${i + 1}` }, changeNote: null, createdAt: at, createdBy: 'usr_elsewhere', approvedAt: null })),
});
const linkOf = (id: string, sourceId: string, targetId: string, linkType = 'requires', sourceType = 'context_node', origin = 'manual') => ({ id, sourceType, sourceId, targetId, linkType, origin, createdAt: at });
const annotation = (id: string, targetType: string, targetId: string) => ({
  id, targetType, targetId, scopeType: 'workspace_overlay', title: 'A note', content: 'Shared', source: 'human', authorId: 'usr_elsewhere', authorKind: 'user', createdAt: at,
});
const feedbackOf = (id: string, targetType: string, targetId: string) => ({
  id, targetType, targetId, feedbackType: 'helpful', summary: 'Good', status: 'open', resolutionNote: null, authorId: 'usr_elsewhere', authorKind: 'user', createdAt: at, updatedAt: at,
});
function document(parts: Record<string, unknown[]>): any {
  return { format: 'playbooks-workspace-export', version: 1, exportedAt: at, workspace: { id: 'ws_elsewhere', name: 'Elsewhere' }, playbooks: [], nodes: [], links: [], annotations: [], feedback: [], ...parts };
}

/** A document of `count` nodes in a chain: each requires the next, and each content wikilinks to the next and to a slug no node has. */
function chain(count: number): any {
  const nodes = Array.from({ length: count }, (_, i) => node(newId('cn'), `page-${i}`, `Page ${i}, next [[page-${(i + 1) % count}]], and [[missing-${i % 7}]].`));
  const links = nodes.flatMap((n, i) => [
    linkOf(newId('lnk'), n.id, nodes[(i + 1) % count].id, 'requires'),
    linkOf(newId('lnk'), n.id, nodes[(i + 1) % count].id, 'references', 'context_node', 'wikilink'),
  ]);
  const pb = playbook(newId('pb'), 'the-plan', [newId('pbv'), newId('pbv')]);
  links.push(linkOf(newId('lnk'), pb.id, nodes[0].id, 'requires', 'playbook'));
  return document({
    playbooks: [pb], nodes, links,
    annotations: [annotation(newId('ann'), 'context_node', nodes[0].id), annotation(newId('ann'), 'playbook_version', pb.versions[1].id)],
    feedback: [feedbackOf(newId('fb'), 'playbook', pb.id)],
  });
}

/** What a workspace holds straight from the graph, beyond what its export shows. */
async function leftovers(workspaceId: string): Promise<Record<string, number>> {
  const [row] = await storedRows(
    `RETURN COUNT { MATCH (x) WHERE (x:Playbook OR x:PlaybookVersion OR x:ContextNode OR x:Annotation OR x:Feedback) AND x.workspaceId = $ws } AS items,
            COUNT { MATCH (k:WikiName {workspaceId: $ws}) WHERE NOT EXISTS { (:ContextNode)-[:NAMED]->(k) } } AS unresolved,
            COUNT { MATCH (k:WikiName {workspaceId: $ws}) } AS names,
            COUNT { MATCH ()-[r]->() WHERE type(r) IN $types AND r.workspaceId = $ws } AS links,
            COUNT { MATCH (w:Workspace {id: $ws}) WHERE w.importId IS NOT NULL } AS marks`,
    { ws: workspaceId, types: linkTypeParams.linkRelTypes },
  );
  return row;
}

/** The content of a document without its ids and what differs between workspaces: comparable across an import. */
function content(doc: any): any {
  const slugOf = new Map<string, string>();
  for (const p of doc.playbooks) slugOf.set(p.id, `pb:${p.slug}`);
  for (const n of doc.nodes) slugOf.set(n.id, `cn:${n.slug}`);
  return {
    playbooks: doc.playbooks.map(({ id: _i, versions, ...p }: any) => ({ ...p, versions: versions.map(({ id: _v, ...v }: any) => v) })),
    // A document may be older than aliases, tags and source paths: their absence is their empty value.
    nodes: doc.nodes.map(({ id: _i, ...n }: any) => ({ aliases: [], tags: [], sourcePath: null, ...n })).sort((a: any, b: any) => a.slug.localeCompare(b.slug)),
    links: doc.links.map((l: any) => `${slugOf.get(l.sourceId)}>${l.linkType}>${slugOf.get(l.targetId)}>${l.origin}`).sort(),
  };
}

describe('workspace import: bounded batches and safe ids', function () {
  this.timeout(120_000);

  it('a link id already used in another workspace is not kept: the import gets a new one and says so', async () => {
    const other = await createWorkspace();
    const pb = await createPlaybook(other, other.owner.key, { title: 'Theirs', slug: 'theirs' });
    await linkPlaybook(other, pb.id, (await createNode(other, { title: 'Their node', slug: 'their-node' })).id, 'requires');
    const usedLinkId: string = (await exportedDoc(other)).links[0].id;
    expect(isIdOf('lnk', usedLinkId)).to.equal(true);

    const target = await createWorkspace();
    const mine = node(newId('cn'), 'mine');
    const minePb = playbook(newId('pb'), 'my-plan', [newId('pbv')]);
    const doc = document({ playbooks: [minePb], nodes: [mine], links: [linkOf(usedLinkId, minePb.id, mine.id, 'requires', 'playbook')] });
    const reply = await importInto(target, doc);
    expect(reply.status).to.equal(201);
    expect(reply.body).to.include({ idsKept: false, idsReplaced: 1, links: 1 });

    const after = await exportedDoc(target);
    expect(after.links).to.have.length(1);
    const newLinkId = after.links[0].id;
    expect(newLinkId).to.not.equal(usedLinkId);
    expect(isIdOf('lnk', newLinkId)).to.equal(true);
    // Every other id was free and well-formed, so it was kept.
    expect(after.playbooks[0].id).to.equal(minePb.id);
    expect(after.nodes[0].id).to.equal(mine.id);
    expect(after.links[0]).to.include({ sourceId: minePb.id, targetId: mine.id });
    // In the whole graph, each of the two ids names one link.
    const rows = await storedRows<{ id: string; n: number }>('MATCH ()-[r]->() WHERE r.id IN $ids RETURN r.id AS id, count(*) AS n', { ids: [usedLinkId, newLinkId] });
    expect(Object.fromEntries(rows.map((r) => [r.id, r.n]))).to.deep.equal({ [usedLinkId]: 1, [newLinkId]: 1 });
  });

  it('the link ids a statement makes (a wikilink resolved late) are of this service’s shape too', () => {
    const made = `lnk_${randomUUID().replace(/-/g, '')}`;
    expect(isIdOf('lnk', made)).to.equal(true);
    expect(isIdOf('cn', made.replace('lnk_', 'cn_'))).to.equal(true);
    expect(isIdOf('lnk', `${made}0`)).to.equal(false);
    expect(isIdOf('lnk', made.toUpperCase().replace('LNK_', 'lnk_'))).to.equal(false);
  });

  it('an id that is not this service’s shape for its kind gets a new one, and references follow it', async () => {
    const elsewhere = await createWorkspace();
    const target = await createWorkspace();
    const kept = newId('cn');
    const forged = ['../../x', elsewhere.workspaceId, newId('pb'), `cn_${'a'.repeat(19)}`, `cn_${'A'.repeat(20)}`];
    const nodes = [node(kept, 'kept'), ...forged.map((id, i) => node(id, `forged-${i}`))];
    const pb = playbook(newId('pb'), 'plan', [`pbv_${'x'.repeat(20)}/..`]);
    const links = [
      ...forged.map((id, i) => linkOf(newId('lnk'), id, kept, 'requires')),
      linkOf('lnk_short', kept, forged[0], 'references'),
      linkOf(newId('lnk'), pb.id, forged[1], 'requires', 'playbook'),
    ];
    const doc = document({
      playbooks: [pb], nodes, links,
      annotations: [annotation(`ann_${'b'.repeat(20)}`, 'playbook_version', pb.versions[0].id)],
      feedback: [feedbackOf(`fb_${'c'.repeat(20)}`, 'context_node', forged[2])],
    });
    const reply = await importInto(target, doc);
    expect(reply.status).to.equal(201);
    // Five node ids, one version id and one link id were not well-formed; the rest were (and free).
    expect(reply.body).to.include({ idsKept: false, idsReplaced: 7, nodes: 6, links: 7 });

    const after = await exportedDoc(target);
    const bySlug = Object.fromEntries(after.nodes.map((n: any) => [n.slug, n.id]));
    expect(bySlug.kept).to.equal(kept);
    for (let i = 0; i < forged.length; i++) {
      expect(isIdOf('cn', bySlug[`forged-${i}`]), bySlug[`forged-${i}`]).to.equal(true);
      expect(bySlug[`forged-${i}`]).to.not.equal(forged[i]);
    }
    const version = after.playbooks[0].versions[0];
    expect(isIdOf('pbv', version.id)).to.equal(true);
    expect(after.playbooks[0].id).to.equal(pb.id);
    const slugOf = new Map<string, string>([...after.nodes.map((n: any) => [n.id, n.slug] as [string, string]), [pb.id, 'plan']]);
    expect(after.links.map((l: any) => `${slugOf.get(l.sourceId)}>${l.linkType}>${slugOf.get(l.targetId)}`).sort()).to.deep.equal([
      ...forged.map((_, i) => `forged-${i}>requires>kept`), 'kept>references>forged-0', 'plan>requires>forged-1',
    ].sort());
    expect(after.links.every((l: any) => isIdOf('lnk', l.id))).to.equal(true);
    expect(after.annotations[0]).to.include({ id: `ann_${'b'.repeat(20)}`, targetId: version.id });
    expect(after.feedback[0]).to.include({ id: `fb_${'c'.repeat(20)}`, targetId: bySlug['forged-2'] });
    // Nothing was stored under a forged id, and the other workspace is untouched.
    expect(await storedRows('MATCH (x) WHERE x.id IN $ids AND NOT x:Workspace RETURN x.id AS id', { ids: forged })).to.deep.equal([]);
    expect(await storedRows('MATCH (w:Workspace {id: $id}) RETURN count(w) AS n', { id: elsewhere.workspaceId })).to.deep.equal([{ n: 1 }]);
  });

  it('an import of many thousands of items is written in several batches, and a re-export has all of it', async () => {
    const count = 6_000;
    const doc = chain(count);
    expect(doc.links.length).to.be.greaterThan(2 * maxBatchUnits);
    const target = await createWorkspace();
    const reply = await importInto(target, doc);
    expect(reply.status, reply.text).to.equal(201);
    expect(reply.body).to.deep.equal({ idsKept: true, idsReplaced: 0, playbooks: 1, versions: 2, nodes: count, links: 2 * count + 1, annotations: 2, feedback: 1 });
    const after = await exportedDoc(target);
    expect(content(after)).to.deep.equal(content(doc));
    expect(after.nodes.map((n: any) => n.id).sort()).to.deep.equal(doc.nodes.map((n: any) => n.id).sort());
    expect(after.links.map((l: any) => l.id).sort()).to.deep.equal(doc.links.map((l: any) => l.id).sort());
    expect(after.annotations.map((a: any) => a.id).sort()).to.deep.equal(doc.annotations.map((a: any) => a.id).sort());
    expect(after.feedback.map((f: any) => f.id)).to.deep.equal(doc.feedback.map((f: any) => f.id));
    // The wikilinks to slugs no node has wait as unresolved links; the import's mark is gone.
    expect(await leftovers(target.workspaceId)).to.include({ unresolved: 7, marks: 0 });
    const audit = (await request('GET', target.path('/audit-events?action=workspace.imported'), { token: target.owner.key })).body.events;
    expect(audit.map((e: any) => e.after)).to.deep.equal([{ idsKept: true, idsReplaced: 0, playbooks: 1, versions: 2, nodes: count, links: 2 * count + 1 }]);
  });

  it('a second import into a workspace while one is under way, or after it, is 409 and changes nothing', async () => {
    const count = 4_000;
    const first = chain(count);
    const target = await createWorkspace();
    let firstDone = false;
    const running = importInto(target, first).then((reply) => {
      firstDone = true;
      return reply;
    });
    // The first import holds the workspace from its first transaction to its last.
    let held = false;
    while (!held && !firstDone) {
      held = (await storedRows('MATCH (w:Workspace {id: $id}) WHERE w.importId IS NOT NULL RETURN w.id', { id: target.workspaceId })).length > 0;
      if (!held) await new Promise((r) => setTimeout(r, 20));
    }
    expect(held, 'the first import was seen holding the workspace').to.equal(true);
    const second = await importInto(target, chain(3));
    const secondWhileHeld = held && !firstDone;
    const body = problem(second, 409, 'conflict');
    if (secondWhileHeld) expect(body.detail).to.match(/under way/);
    expect((await running).status).to.equal(201);
    problem(await importInto(target, chain(3)), 409, 'conflict');
    const after = await exportedDoc(target);
    expect(after.nodes).to.have.length(count);
    expect(after.playbooks).to.have.length(1);
  });

  it('an import whose batch Neo4j refuses midway is undone whole: the workspace is empty again and a retry succeeds', async () => {
    const doc = chain(2_500);
    const target = await createWorkspace();
    const graph = sharedGraph();
    const writeTx = graph.writeTx.bind(graph);
    // The annotations come after every node, link and wikilink: the failure leaves the most to undo.
    graph.writeTx = (<R>(work: (tx: GraphTx) => Promise<R>) =>
      writeTx((tx) =>
        work({
          ...tx,
          run: (name, params) => {
            if (name === 'transfer/create-remarks' && params?.label === 'Annotation') {
              throw new Neo4jError('The allocation of an extra 2.0 MiB would use more than the limit 256.0 MiB.', 'Neo.TransientError.General.MemoryPoolOutOfMemoryError', '51N72', 'error: system configuration or operation exception - memory pool out of memory');
            }
            return tx.run(name, params);
          },
        }),
      )) as typeof graph.writeTx;
    let failed;
    try {
      failed = await importInto(target, doc);
    } finally {
      graph.writeTx = writeTx;
    }
    const body = problem(failed, 503, 'service_unavailable');
    expect(body.detail).to.match(/refused/);
    expect(await leftovers(target.workspaceId)).to.deep.equal({ items: 0, unresolved: 0, names: 0, links: 0, marks: 0 });
    const empty = await exportedDoc(target);
    expect([empty.playbooks, empty.nodes, empty.links, empty.annotations, empty.feedback]).to.deep.equal([[], [], [], [], []]);
    expect((await request('GET', target.path('/audit-events?action=workspace.imported'), { token: target.owner.key })).body.events).to.deep.equal([]);

    // What was undone frees its ids again: the retry keeps them all.
    const retry = await importInto(target, doc);
    expect(retry.status, retry.text).to.equal(201);
    expect(retry.body).to.include({ idsKept: true, nodes: 2_500, annotations: 2 });
    expect(content(await exportedDoc(target))).to.deep.equal(content(doc));
  });

  it('a document of more items than an import writes is refused whole with a 413 naming the limit', () => {
    const doc = document({ nodes: new Array(maxImportItems) }) as ExportDoc;
    expect(() => checkSize(doc)).to.not.throw();
    doc.feedback = new Array(1) as ExportDoc['feedback'];
    let refused: unknown;
    try {
      checkSize(doc);
    } catch (err) {
      refused = err;
    }
    expect(refused).to.be.instanceOf(AppError);
    expect(refused).to.include({ code: 'payload_too_large', status: 413 });
    expect((refused as AppError).message).to.include(maxImportItems.toLocaleString('en'));
  });

  it('the taken-id check and its indexes cover every link type', () => {
    const text = new QueryCatalog().get('transfer/taken-ids');
    const indexed = loadMigrations().flatMap((m) => m.statements).join('\n');
    for (const type of linkTypeParams.linkRelTypes) {
      expect(text, type).to.match(new RegExp(`\\[r:${type}\\]`));
      expect(indexed, type).to.match(new RegExp(`FOR \\(\\)-\\[r:${type}\\]-\\(\\) ON \\(r\\.id\\)`));
    }
  });
});
