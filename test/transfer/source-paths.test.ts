import { expect } from 'chai';
import { newId } from '../../src/infra/ids.js';
import { createWorkspace, problem } from '../support/api.js';
import { nodesBySlug } from '../support/nodes.js';
import { importInto } from '../support/transfer.js';

const at = '2026-01-02T03:04:05.678Z';

const node = (slug: string, sourcePath: string, status = 'live') => ({
  id: newId('cn'), slug, title: `Title of ${slug}`, description: `About ${slug}`, content: '', nodeType: 'reference', agentSummary: null, importance: 50,
  readFirst: false, edgeCaseOnly: false, status, createdAt: at, updatedAt: at, archivedAt: status === 'archived' ? at : null, aliases: [], tags: [], sourcePath,
});

const document = (nodes: unknown[]) => ({
  format: 'playbooks-workspace-export', version: 1, exportedAt: at, workspace: { id: 'ws_elsewhere', name: 'Elsewhere' },
  playbooks: [], nodes, links: [], annotations: [], feedback: [],
});

describe('source paths in a workspace import', function () {
  this.timeout(60_000);

  it('refuses a document in which two live nodes have one source path, ignoring case and Unicode form, and writes nothing', async () => {
    const workspace = await createWorkspace();
    for (const [a, b] of [['notes/plan.md', 'Notes/Plan.md'], ['café.md', 'café.md'.normalize('NFD')]]) {
      const body = problem(await importInto(workspace, document([node('first', a), node('second', b)])), 400, 'invalid_request');
      expect(body.errors?.[0]).to.include({ path: '/nodes/1/sourcePath' });
      expect(body.errors?.[0].message).to.match(/source path of the live node \/nodes\/0/);
    }
    expect(await nodesBySlug(workspace)).to.deep.equal({});
  });

  it('takes an archived node sharing a live node’s source path', async () => {
    const workspace = await createWorkspace();
    const reply = await importInto(workspace, document([node('live', 'notes/plan.md'), node('old', 'Notes/Plan.md', 'archived')]));
    expect(reply.status, reply.text).to.equal(201);
    const stored = await nodesBySlug(workspace);
    expect(Object.keys(stored).sort()).to.deep.equal(['live', 'old']);
  });
});
