import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { type EmbeddingStatus, EmbeddingRate, progressLine, statusLine, watchEmbeddings } from '../../src/shell/embeddings-progress.js';
import { reasonText } from '@playbooks/client';
import { type TestWorkspace, createWorkspace, unique } from '../support/api.js';
import { adminToken, env } from '../support/harness.js';
import { createNode, link } from '../support/nodes.js';

/** `npm run cli -- ARGS` against the run's service, with the given environment on top of this one. */
async function cli(args: string[], extraEnv: Record<string, string>): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
    env: { ...process.env, API_URL: env.service.url, ...extraEnv },
  });
  return stdout;
}

/** The rows of a printed table, each as its cells (the header and the rule left out). */
const tableRows = (text: string) => text.trim().split('\n').slice(2, -1).map((line) => line.split(' | ').map((cell) => cell.trim()));

/** A word no other test's node holds. */
const rareWord = () => `qx${randomUUID().replace(/-/g, '').slice(0, 10)}`;

const status = (fields: Partial<EmbeddingStatus>): EmbeddingStatus => ({ state: 'embedding', model: 'test-model', dimension: 8, total: 2000, embedded: 0, pending: 2000, ...fields });

describe('npm run cli -- find and embeddings', function () {
  this.timeout(120_000);
  let workspace: TestWorkspace;

  before(async () => {
    workspace = await createWorkspace({ name: unique('CLI find') });
  });

  it('find prints the node whose words match the question first, with its reason, and the answer as JSON on asking', async () => {
    const word = rareWord();
    const claims = await createNode(workspace, { title: unique('Expense claims'), content: `Send travel receipts within 30 days to be reimbursed (${word}).` });
    const scanning = await createNode(workspace, { title: unique('Scanning app'), content: 'Photograph the paper before filing it.' });
    await createNode(workspace, { title: unique('Brand voice'), content: 'Write plainly and warmly.' });
    await link(workspace, claims.id, scanning.id, 'requires');
    const question = `How do I get my travel receipts reimbursed? ${word}`;

    const printed = await cli(['find', question, '--workspace', workspace.workspaceId], { API_KEY: workspace.owner.key });
    const rows = tableRows(printed);
    expect(rows.map(([rank, title, slug, , reason]) => [rank, title, slug, reason])).to.deep.equal([
      ['1', claims.title, claims.slug, 'matched by words'],
      ['2', scanning.title, scanning.slug, `linked from ${claims.title} by requires`],
    ]);
    expect(rows[0][3]).to.equal('1.00');
    // The test service has no embeddings: a hybrid question is searched by its words, and the footer says so.
    expect(printed.trim().split('\n').at(-1)).to.equal('(2 of 2 nodes; searched by words (meaning search is not available))');

    // What a node requires comes with it even at depth 0; --limit 1 leaves it for the next page.
    const answer = JSON.parse(await cli(['find', question, '--workspace', workspace.workspaceId, '--mode', 'words', '--depth', '0', '--limit', '1', '--format', 'json'], { API_KEY: workspace.owner.key }));
    expect(answer.query).to.deep.equal({ mode: 'words', depth: 0, model: null });
    expect(answer.nodes.map((n: { id: string }) => n.id)).to.deep.equal([claims.id]);
    expect([answer.rankedCount, answer.omittedCount, typeof answer.cursor]).to.deep.equal([2, 1, 'string']);
  });

  it('embeddings prints a workspace’s state with its key, every workspace’s with the admin token, and --watch ends at once when they are off', async () => {
    const line = (await cli(['embeddings', '--workspace', workspace.workspaceId], { API_KEY: workspace.owner.key })).trim();
    expect(line).to.equal('off  embeddings are off: nodes are found by their words alone');
    const asJson = JSON.parse(await cli(['embeddings', '--workspace', workspace.workspaceId, '--format', 'json'], { API_KEY: workspace.owner.key }));
    expect(asJson).to.deep.equal({ state: 'off', model: null, dimension: null, total: 0, embedded: 0, pending: 0 });
    expect((await cli(['embeddings'], { ADMIN_TOKEN: adminToken })).trim()).to.equal(line);
    // Nothing to wait for: the final line alone.
    expect((await cli(['embeddings', '--workspace', workspace.workspaceId, '--watch'], { API_KEY: workspace.owner.key })).trim()).to.equal(line);
  });

  it('the progress line shows the share embedded as a bar of 20, the counts and the rate', () => {
    expect(progressLine(status({ embedded: 1234, pending: 766 }), 12.34)).to.equal('embedding  [############--------]  1,234 / 2,000 nodes  12.3 nodes/s');
    // Full only once every node is embedded; no rate until there are two samples.
    expect(progressLine(status({ embedded: 1999, pending: 1 }), null)).to.equal('embedding  [###################-]  1,999 / 2,000 nodes');
    expect(progressLine(status({ total: 0, pending: 0 }), null)).to.equal('embedding  [####################]  0 / 0 nodes');
    expect(progressLine(status({ state: 'provider-unavailable', embedded: 500, error: 'connection refused' }), 0)).to.equal(
      'paused     [#####---------------]  500 / 2,000 nodes  0.0 nodes/s  (provider unavailable: connection refused)',
    );
    expect(statusLine(status({ state: 'ready', embedded: 2000, pending: 0 }))).to.equal('ready  2,000 / 2,000 nodes embedded, 0 pending  model test-model (8 dimensions)');
  });

  it('the rate is nodes embedded per second over the last ten seconds, never below nothing', () => {
    const rate = new EmbeddingRate();
    expect(rate.add(0, 100)).to.equal(null);
    expect(rate.add(1_000, 110)).to.equal(10);
    expect(rate.add(2_000, 130)).to.equal(15);
    // Samples older than the window are dropped: from t=2 s (130) to t=12 s (220).
    expect(rate.add(12_000, 220)).to.equal(9);
    expect(rate.add(13_000, 0)).to.equal(0);
  });

  it('--watch writes a line each time the figures change when not on a terminal, redraws one line on a terminal, and ends with the status', async () => {
    const script = [
      status({ embedded: 0, pending: 4, total: 4 }),
      status({ embedded: 0, pending: 4, total: 4 }),
      status({ embedded: 2, pending: 2, total: 4 }),
      status({ state: 'ready', embedded: 4, pending: 0, total: 4 }),
    ];
    const run = async (isTTY: boolean) => {
      const written: string[] = [];
      let at = 0;
      const answers = [...script];
      const final = await watchEmbeddings({
        read: async () => answers.shift()!,
        out: { isTTY, write: (text: string) => written.push(text) },
        now: () => at,
        wait: async (ms) => { at += ms; },
      });
      return { written, final };
    };

    const piped = await run(false);
    expect(piped.written).to.deep.equal([
      'embedding  [--------------------]  0 / 4 nodes\n',
      'embedding  [##########----------]  2 / 4 nodes  1.0 nodes/s\n',
      'ready  4 / 4 nodes embedded, 0 pending  model test-model (8 dimensions)\n',
    ]);
    expect(piped.final.state).to.equal('ready');

    const drawn = await run(true);
    expect(drawn.written).to.deep.equal([
      '\rembedding  [--------------------]  0 / 4 nodes\x1b[K',
      '\rembedding  [--------------------]  0 / 4 nodes  0.0 nodes/s\x1b[K',
      '\rembedding  [##########----------]  2 / 4 nodes  1.0 nodes/s\x1b[K',
      '\r\x1b[Kready  4 / 4 nodes embedded, 0 pending  model test-model (8 dimensions)\n',
    ]);
  });

  it('a linked node is named by the title of the node it came from when that one is in the answer, else by its id', () => {
    const titles = new Map([['cn_1', 'Travel policy']]);
    const titleOf = (id: string) => titles.get(id);
    expect(reasonText({ kind: 'linked', fromId: 'cn_1', linkType: 'requires', direction: 'out', depth: 1 }, titleOf)).to.equal('linked from Travel policy by requires');
    expect(reasonText({ kind: 'linked', fromId: 'cn_9', linkType: 'references', direction: 'in', depth: 2 }, titleOf)).to.equal('links to cn_9 by references');
    expect(reasonText({ kind: 'matched', by: ['words', 'meaning'], section: 'Expense claims', demotedBy: ['superseded'] }, titleOf)).to.equal(
      'matched by meaning and words · section “Expense claims” · ranked last: superseded',
    );
  });
});
