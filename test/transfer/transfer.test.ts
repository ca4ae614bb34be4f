import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { type TestWorkspace, addMember, createWorkspace, problem, request, requestStream } from '../support/api.js';
import { ExportDocument } from '../../src/transfer/schemas.js';
import { responseProblems } from '../../src/api/validation.js';
import { env } from '../support/harness.js';
import { createAgent } from '../support/agents.js';
import { archiveNode, createNode, getNode, link, linkPlaybook } from '../support/nodes.js';
import { createPlaybook, createVersion, getPlaybook } from '../support/playbooks.js';
import { exportOf, importInto } from '../support/transfer.js';

/**
 * An export with every id replaced by a name that depends on content only (playbook and node slugs, version
 * numbers, positions), and without what differs between workspaces by design (the workspace, exportedAt).
 */
function canonical(doc: any): any {
  const names = new Map<string, string>();
  for (const p of doc.playbooks) {
    names.set(p.id, `pb:${p.slug}`);
    for (const v of p.versions) names.set(v.id, `pbv:${p.slug}#${v.versionNumber}`);
  }
  for (const n of doc.nodes) names.set(n.id, `cn:${n.slug}`);
  doc.links.forEach((l: any, i: number) => names.set(l.id, `lnk:${i}`));
  doc.annotations.forEach((a: any, i: number) => names.set(a.id, `ann:${i}`));
  doc.feedback.forEach((f: any, i: number) => names.set(f.id, `fb:${i}`));
  const walk = (value: any): any => {
    if (typeof value === 'string') return names.get(value) ?? value;
    if (Array.isArray(value)) return value.map(walk);
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v)]));
    return value;
  };
  const { workspace: _w, exportedAt: _e, ...rest } = doc;
  return walk(rest);
}

/** A workspace with playbooks, versions (approved, deprecated, draft), nodes, links of every origin, annotations and feedback. */
async function richWorkspace(): Promise<{ workspace: TestWorkspace; ids: Record<string, string> }> {
  const workspace = await createWorkspace();
  const key = workspace.owner.key;
  const agent = await createAgent(workspace, { role: 'editor' });
  const playbook = await createPlaybook(workspace, key, { title: 'Launch plan', slug: 'launch-plan', tags: ['launch', 'q3'], summary: 'How we launch' });
  const v1 = playbook.versions[0];
  await request('PATCH', workspace.path(`/playbooks/${playbook.id}/versions/${v1.id}/approve`), { token: key });
  const v2 = await createVersion(workspace, key, playbook.id, { content: { instructions: 'Ship it', steps: [1, { nested: true }] }, changeNote: 'better' });
  await request('PATCH', workspace.path(`/playbooks/${playbook.id}/versions/${v2.id}/approve`), { token: key });
  await createVersion(workspace, key, playbook.id, { content: { instructions: 'Draft' } });
  const other = await createPlaybook(workspace, key, { title: 'Old plan', slug: 'old-plan' });
  await request('DELETE', workspace.path(`/playbooks/${other.id}`), { token: key });

  const voice = await createNode(workspace, { title: 'Voice', slug: 'voice', description: 'How we sound', readFirst: true, importance: 90, agentSummary: 'Plain' });
  const terms = await createNode(workspace, { title: 'Terms', slug: 'terms', description: 'Words', content: 'Uses [[voice]] and [[not-yet]]; `[[in-code]]`' });
  const old = await createNode(workspace, { title: 'Old terms', slug: 'old-terms', description: 'Outdated', nodeType: 'example', edgeCaseOnly: true });
  await link(workspace, terms.id, old.id, 'supersedes');
  await link(workspace, terms.id, voice.id, 'requires');
  await linkPlaybook(workspace, playbook.id, terms.id, 'requires');
  await archiveNode(workspace, old.id);

  const note = await request('POST', workspace.path('/context/annotations'), { token: key, body: { targetType: 'context_node', targetId: voice.id, scopeType: 'workspace_overlay', title: 'Note', content: 'Shared' } });
  expect(note.status).to.equal(201);
  const own = await request('POST', workspace.path('/context/annotations'), { token: agent.key, body: { targetType: 'playbook_version', targetId: v2.id, scopeType: 'agent_local', title: 'Mine', content: 'Only me' } });
  expect(own.status).to.equal(201);
  const fb = await request('POST', workspace.path('/context/feedback'), { token: agent.key, body: { targetType: 'playbook', targetId: playbook.id, feedbackType: 'outdated', summary: 'Step 2 is old' } });
  expect(fb.status).to.equal(201);
  expect((await request('PATCH', workspace.path(`/context/feedback/${fb.body.id}`), { token: key, body: { status: 'resolved', resolutionNote: 'Fixed' } })).status).to.equal(200);
  const fb2 = await request('POST', workspace.path('/context/feedback'), { token: key, body: { targetType: 'context_node', targetId: terms.id, feedbackType: 'helpful', summary: 'Good' } });
  expect(fb2.status).to.equal(201);
  return { workspace, ids: { playbook: playbook.id, v2: v2.id, voice: voice.id, terms: terms.id, old: old.id } };
}

describe('workspace export and import', function () {
  // Each test arranges a whole workspace (or spawns the CLI) through the API: slow on a loaded 2-core machine.
  this.timeout(120_000);
  it('exports every part of a workspace in the documented format', async () => {
    const { workspace, ids } = await richWorkspace();
    const reply = await exportOf(workspace);
    expect(reply.status).to.equal(200);
    expect(reply.headers.get('content-disposition')).to.include(`${workspace.workspaceId}.playbooks-export.json`);
    expect(reply.headers.get('content-type')).to.match(/^application\/json/);
    const doc = reply.body;
    expect(responseProblems(ExportDocument, doc)).to.equal(null);
    expect(doc).to.include({ format: 'playbooks-workspace-export', version: 1 });
    expect(doc.workspace.id).to.equal(workspace.workspaceId);
    expect(doc.playbooks.map((p: any) => [p.slug, p.versions.map((v: any) => v.status), p.archivedAt === null])).to.deep.equal([
      ['launch-plan', ['deprecated', 'approved', 'draft'], true], ['old-plan', ['draft'], false],
    ]);
    expect(doc.playbooks[0].versions[1].content).to.deep.equal({ instructions: 'Ship it', steps: [1, { nested: true }] });
    expect(doc.playbooks[0].tags).to.deep.equal(['launch', 'q3']);
    expect(doc.nodes.map((n: any) => [n.slug, n.status])).to.deep.equal([['voice', 'live'], ['terms', 'live'], ['old-terms', 'archived']]);
    expect(doc.links.map((l: any) => [l.sourceId, l.linkType, l.targetId, l.origin])).to.have.deep.members([
      [ids.terms, 'references', ids.voice, 'wikilink'], [ids.terms, 'supersedes', ids.old, 'manual'], [ids.terms, 'requires', ids.voice, 'manual'], [ids.playbook, 'requires', ids.terms, 'manual'],
    ]);
    expect(doc.annotations.map((a: any) => [a.scopeType, a.targetId, a.authorKind])).to.deep.equal([['workspace_overlay', ids.voice, 'user'], ['agent_local', ids.v2, 'agent']]);
    expect(doc.feedback.map((f: any) => [f.feedbackType, f.status, f.resolutionNote])).to.deep.equal([['outdated', 'resolved', 'Fixed'], ['helpful', 'open', null]]);
  });

  it('sends a large workspace as it reads it: in chunks, without a Content-Length, as one whole document', async () => {
    const workspace = await createWorkspace();
    const nodes = Array.from({ length: 400 }, (_, i) => ({
      slug: `page-${i}`, title: `Page ${i}`, description: 'A page of the vault', content: `${'Words about the page. '.repeat(40)}[[page-${(i + 1) % 400}]]`,
    }));
    for (let at = 0; at < nodes.length; at += 200) {
      const batch = await request('POST', workspace.path('/context-nodes/import'), { token: workspace.owner.key, body: { nodes: nodes.slice(at, at + 200) } });
      expect(batch.status).to.equal(200);
    }
    const res = await requestStream('GET', workspace.path('/export'), { token: workspace.owner.key });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-length')).to.equal(null);
    let chunks = 0;
    let text = '';
    const decoder = new TextDecoder();
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      chunks += 1;
      text += decoder.decode(chunk, { stream: true });
    }
    expect(chunks).to.be.greaterThan(1);
    const doc = JSON.parse(text);
    expect(responseProblems(ExportDocument, doc)).to.equal(null);
    expect(doc.nodes.map((n: any) => n.slug)).to.have.members(nodes.map((n) => n.slug));
    expect(doc.links).to.have.length(400);
  });

  it('export → import into an empty workspace → export gives the same content, and the graph works', async () => {
    const { workspace, ids } = await richWorkspace();
    const first = (await exportOf(workspace)).body;
    const target = await createWorkspace();
    const imported = await importInto(target, first);
    expect(imported.status).to.equal(201);
    // The same deployment already uses the ids: new ones are given.
    expect(imported.body).to.deep.equal({ idsKept: false, idsReplaced: 17, playbooks: 2, versions: 4, nodes: 3, links: 4, annotations: 2, feedback: 2 });
    const audit = (await request('GET', target.path('/audit-events?action=workspace.imported'), { token: target.owner.key })).body.events;
    expect(audit.map((e: any) => [e.targetIds, e.after.nodes])).to.deep.equal([[[target.workspaceId], 3]]);
    const second = (await exportOf(target)).body;
    expect(canonical(second)).to.deep.equal(canonical(first));

    // Read back through the API: links, unresolved wikilinks, versions, a bundle.
    const terms = second.nodes.find((n: any) => n.slug === 'terms');
    const detail = await getNode(target, terms.id);
    expect(detail.unresolvedLinks).to.deep.equal(['not-yet']);
    expect(detail.outgoingLinks.map((l: any) => `${l.linkType}>${l.slug}>${l.origin}`).sort()).to.deep.equal(['references>voice>wikilink', 'requires>voice>manual', 'supersedes>old-terms>manual']);
    const playbook = second.playbooks.find((p: any) => p.slug === 'launch-plan');
    expect(playbook.id).to.not.equal(ids.playbook);
    const pb = await getPlaybook(target, target.owner.key, playbook.id);
    expect(pb.activeVersion.versionNumber).to.equal(2);
    const bundle = await request('GET', target.path(`/context/bundle?playbookId=${playbook.id}`), { token: target.owner.key });
    expect(bundle.status).to.equal(200);
    expect(bundle.body.nodes.map((n: any) => n.slug)).to.include.members(['voice', 'terms']);
  });

  it('keeps the export’s ids when this deployment does not use them', async () => {
    const target = await createWorkspace();
    // The shape of this service's ids (a prefix, then 20 base36 characters): only such an id is kept.
    const suffix = randomUUID().replace(/-/g, '').slice(0, 20);
    const at = '2026-01-02T03:04:05.678Z';
    const doc = {
      format: 'playbooks-workspace-export', version: 1, exportedAt: at, workspace: { id: 'ws_elsewhere', name: 'Elsewhere' },
      playbooks: [{
        id: `pb_${suffix}`, slug: 'moved', title: 'Moved', summary: null, description: null, functionArea: null, visibility: 'workspace_private', ownerId: 'usr_elsewhere', tags: [],
        createdAt: at, updatedAt: at, archivedAt: null,
        versions: [{ id: `pbv_${suffix}`, versionNumber: 1, status: 'approved', content: { instructions: 'x' }, changeNote: null, createdAt: at, createdBy: 'usr_elsewhere', approvedAt: at }],
      }],
      nodes: [{ id: `cn_${suffix}`, slug: 'moved-node', title: 'Moved node', description: 'd', content: '', nodeType: 'reference', agentSummary: null, importance: 50, readFirst: false, edgeCaseOnly: false, status: 'live', createdAt: at, updatedAt: at, archivedAt: null }],
      links: [{ id: `lnk_${suffix}`, sourceType: 'playbook', sourceId: `pb_${suffix}`, targetId: `cn_${suffix}`, linkType: 'requires', origin: 'manual', createdAt: at }],
      annotations: [], feedback: [],
    };
    const reply = await importInto(target, doc);
    expect(reply.status).to.equal(201);
    expect(reply.body).to.include({ idsKept: true, idsReplaced: 0 });
    const pb = await getPlaybook(target, target.owner.key, `pb_${suffix}`);
    expect(pb.contextNodes.map((n: any) => [n.linkId, n.id])).to.deep.equal([[`lnk_${suffix}`, `cn_${suffix}`]]);
    expect(pb).to.include({ ownerId: 'usr_elsewhere', createdAt: at });
    const again = (await exportOf(target)).body;
    // A document written before nodes had aliases, tags and a source path is exported again with their empty values.
    expect({ ...again, exportedAt: at, workspace: doc.workspace }).to.deep.equal({ ...doc, nodes: doc.nodes.map((n) => ({ ...n, aliases: [], tags: [], sourcePath: null })) });
  });

  it('the CLI exports to a file and imports that file into another workspace', async () => {
    const { workspace } = await richWorkspace();
    const target = await createWorkspace();
    const dir = mkdtempSync(path.join(os.tmpdir(), 'export-'));
    const file = path.join(dir, 'ws.json');
    const cli = (key: string, ...args: string[]) => promisify(execFile)('npx', ['tsx', 'src/cli.ts', ...args], { env: { ...process.env, API_URL: env.service.url, API_KEY: key } });
    try {
      expect(JSON.parse((await cli(workspace.owner.key, 'export', '--workspace', workspace.workspaceId, '--out', file)).stdout).file).to.equal(file);
      const written = JSON.parse(readFileSync(file, 'utf8'));
      expect(written.nodes).to.have.length(3);
      const imported = JSON.parse((await cli(target.owner.key, 'import', file, '--workspace', target.workspaceId)).stdout);
      expect(imported).to.include({ playbooks: 2, nodes: 3, links: 4 });
      expect(canonical((await exportOf(target)).body)).to.deep.equal(canonical(written));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('imports only into an empty workspace (409), and only for owners', async () => {
    const { workspace } = await richWorkspace();
    const doc = (await exportOf(workspace)).body;
    problem(await importInto(workspace, doc), 409, 'conflict');
    const target = await createWorkspace();
    const editor = await addMember(target, 'editor');
    problem(await importInto(target, doc, editor.key), 403, 'insufficient_role');
    problem(await exportOf(workspace, (await addMember(workspace, 'editor')).key), 403, 'insufficient_role');
    expect((await request('GET', target.path('/context-nodes?status=all'), { token: target.owner.key })).body.nodes).to.deep.equal([]);
  });

  it('refuses an inconsistent or malformed document with a 400 and writes nothing', async () => {
    const { workspace } = await richWorkspace();
    const doc = (await exportOf(workspace)).body;
    const target = await createWorkspace();
    const dangling = structuredClone(doc);
    dangling.links[0].targetId = 'cn_nowhere';
    dangling.feedback[0].targetType = 'context_node';
    const body = problem(await importInto(target, dangling), 400, 'invalid_request');
    expect(body.errors!.map((e) => e.path)).to.include.members(['/links/0/targetId', '/feedback/0/targetId']);
    const twice = structuredClone(doc);
    twice.nodes[1].slug = twice.nodes[0].slug;
    expect(problem(await importInto(target, twice), 400, 'invalid_request').errors![0].path).to.equal('/nodes/1/slug');
    problem(await importInto(target, { ...doc, version: 2 }), 400, 'invalid_request');
    problem(await importInto(target, { ...doc, extra: true }), 400, 'invalid_request');
    const bad = structuredClone(doc);
    bad.nodes[0].nodeType = 'poem';
    expect(problem(await importInto(target, bad), 400, 'invalid_request').errors![0].path).to.equal('/nodes/0/nodeType');
    expect((await request('GET', target.path('/context-nodes?status=all'), { token: target.owner.key })).body.nodes).to.deep.equal([]);
    expect((await request('GET', target.path('/playbooks'), { token: target.owner.key })).body.playbooks).to.deep.equal([]);
  });
});
