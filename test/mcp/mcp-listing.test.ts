import { expect } from 'chai';
import { type TestWorkspace, createWorkspace, request } from '../support/api.js';
import { mcpClient } from '../support/mcp.js';
import { sharedGraph } from '../support/neo4j.js';
import { archiveNode, createNode, nodesBySlug } from '../support/nodes.js';
import { createPlaybook, getPlaybook } from '../support/playbooks.js';

/** Imports nodes with these slugs in one request (title: the slug). */
async function importNodes(w: TestWorkspace, slugs: string[]): Promise<void> {
  const nodes = slugs.map((slug) => ({ slug, title: slug, description: 'd', content: `About ${slug}` }));
  const imported = await request('POST', w.path('/context-nodes/import'), { token: w.owner.key, body: { nodes } });
  expect(imported.status, imported.text).to.be.oneOf([200, 201]);
}

/** A playbook with this slug, its first version approved unless `draft`. */
async function playbook(w: TestWorkspace, slug: string, draft = false): Promise<string> {
  const { id } = await createPlaybook(w, w.owner.key, { slug, title: `Playbook ${slug}` });
  if (!draft) {
    const version = (await getPlaybook(w, w.owner.key, id)).versions[0].id;
    expect((await request('PATCH', w.path(`/playbooks/${id}/versions/${version}/approve`), { token: w.owner.key })).status).to.equal(200);
  }
  return id;
}

/** The operators of a statement's plan, each with its details. */
async function planOf(statement: string, params: Record<string, unknown>): Promise<{ operator: string; details: string }[]> {
  const graph = sharedGraph();
  const { summary } = await graph.driver.executeQuery(`EXPLAIN ${graph.text(statement)}`, params, { database: graph.database });
  const operators: { operator: string; details: string }[] = [];
  const walk = (op: any) => {
    operators.push({ operator: String(op.operatorType), details: String(op.arguments?.Details ?? '') });
    for (const child of op.children ?? []) walk(child);
  };
  walk(summary.plan);
  return operators;
}

describe('MCP completions: slugs that start with what was typed', function () {
  this.timeout(120_000);

  it('node://{slug} completes with the live nodes whose slug starts with the prefix, in slug order, whatever the case typed', async () => {
    const w = await createWorkspace();
    await importNodes(w, ['fit-2', 'fit-1-beta', 'unfit-1', 'fit-10', 'fit-1-alpha', 'fit-1-gone']);
    // A node that a text search for the prefix finds, whose slug does not start with it.
    await createNode(w, { slug: 'notes', title: 'fit-1 notes', content: 'fit-1 fit-1' });
    await archiveNode(w, (await nodesBySlug(w))['fit-1-gone'].id);
    const client = await mcpClient(w);
    try {
      const ref = { type: 'ref/resource' as const, uri: 'node://{slug}' };
      for (const value of ['fit-1', 'FIT-1', ' fit-1']) {
        const { completion } = await client.complete({ ref, argument: { name: 'slug', value } });
        expect(completion.values, value).to.deep.equal(['fit-1-alpha', 'fit-1-beta', 'fit-10']);
        expect(completion.hasMore).to.equal(false);
      }
      expect((await client.complete({ ref, argument: { name: 'slug', value: 'fit-1-a' } })).completion.values).to.deep.equal(['fit-1-alpha']);
      expect((await client.complete({ ref, argument: { name: 'slug', value: 'nothing-like-it' } })).completion.values).to.deep.equal([]);
      const all = (await client.complete({ ref, argument: { name: 'slug', value: '' } })).completion;
      expect(all.values).to.deep.equal(['fit-1-alpha', 'fit-1-beta', 'fit-10', 'fit-2', 'notes', 'unfit-1']);
    } finally {
      await client.close();
    }
  });

  it('says hasMore past the first hundred, which are the first in slug order', async () => {
    const w = await createWorkspace();
    const slugs = Array.from({ length: 101 }, (_, i) => `many-${String(i).padStart(3, '0')}`);
    await importNodes(w, [...slugs].reverse());
    const client = await mcpClient(w);
    try {
      const { completion } = await client.complete({ ref: { type: 'ref/resource', uri: 'node://{slug}' }, argument: { name: 'slug', value: 'many-' } });
      expect(completion.values).to.deep.equal(slugs.slice(0, 100));
      expect(completion.hasMore).to.equal(true);
    } finally {
      await client.close();
    }
  });

  it('run_playbook and playbook://{slug} complete with the approved playbooks whose slug starts with the prefix', async () => {
    const w = await createWorkspace();
    await playbook(w, 'deploy-web');
    await playbook(w, 'deploy-api');
    await playbook(w, 'deploy-docs', true);
    await playbook(w, 'redeploy');
    const old = await playbook(w, 'deploy-old');
    expect((await request('DELETE', w.path(`/playbooks/${old}`), { token: w.owner.key })).status).to.equal(204);
    const client = await mcpClient(w);
    try {
      const prompt = await client.complete({ ref: { type: 'ref/prompt', name: 'run_playbook' }, argument: { name: 'playbook', value: 'deploy' } });
      expect(prompt.completion.values).to.deep.equal(['deploy-api', 'deploy-web']);
      const resource = await client.complete({ ref: { type: 'ref/resource', uri: 'playbook://{slug}' }, argument: { name: 'slug', value: 'Deploy-' } });
      expect(resource.completion.values).to.deep.equal(['deploy-api', 'deploy-web']);
    } finally {
      await client.close();
    }
  });

  it('each completion is an index seek on the workspace’s slugs, not a scan', async () => {
    for (const statement of ['retrieval/node-slugs-starting-with', 'retrieval/playbook-slugs-starting-with']) {
      const plan = await planOf(statement, { workspaceId: 'ws_00000000000000000000', prefix: 'fit-1', limit: 101 });
      const seek = plan.find((op) => /IndexSeek/.test(op.operator));
      expect(seek, `${statement}: ${JSON.stringify(plan)}`).to.not.equal(undefined);
      expect(seek!.details).to.match(/slug STARTS WITH/);
      expect(plan.map((op) => op.operator).join(' '), statement).not.to.match(/LabelScan|AllNodesScan/);
    }
  });
});

describe('MCP resources/list', function () {
  this.timeout(120_000);

  it('gives the playbooks and the first nodes on its first page, and the rest by cursor, each once', async () => {
    const w = await createWorkspace();
    const slug = 'a-playbook';
    await playbook(w, slug);
    const slugs = Array.from({ length: 60 }, (_, i) => `node-${String(i).padStart(2, '0')}`);
    await importNodes(w, slugs);
    const client = await mcpClient(w);
    try {
      const first = await client.listResources();
      expect(first.resources.map((r) => r.uri)).to.deep.equal([`playbook://${slug}`, ...slugs.slice(0, 50).map((s) => `node://${s}`)]);
      expect(first.nextCursor).to.be.a('string');
      const second = await client.listResources({ cursor: first.nextCursor });
      expect(second.resources.map((r) => r.uri)).to.deep.equal(slugs.slice(50).map((s) => `node://${s}`));
      expect(second.nextCursor).to.equal(undefined);
      const refused = await client.listResources({ cursor: 'bm90IGEgY3Vyc29y' }).catch((err) => err);
      expect(refused.code).to.equal(-32602);
    } finally {
      await client.close();
    }
  });
});
