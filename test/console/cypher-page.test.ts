import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { expect } from 'chai';
import { parse } from 'csv-parse/sync';
import { type TestWorkspace, createWorkspace, problem, request } from '../support/api.js';
import { analystToken } from '../support/harness.js';
import { createNode, link } from '../support/nodes.js';
import { consoleInChromium, consoleUrl, screenshotDir } from './browser.js';
import { overflowsSideways, seriousA11yViolations, viewports } from './page-checks.js';

/** Replaces the editor's text, as typed. */
async function setQuery(page: Page, text: string): Promise<void> {
  await page.getByTestId('cypher-input').click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.insertText(text);
}

async function signInAsAnalyst(page: Page, token = analystToken): Promise<void> {
  await page.goto(consoleUrl('/cypher'));
  await page.getByLabel('Analyst token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

describe('the console’s Cypher page, in Chromium', function () {
  this.timeout(180_000);
  // Answers these tests ask for on purpose, each logged by Chromium: a wrong token (401), a refused write (403), a
  // syntax error (400).
  const chromium = consoleInChromium({ refusedStatuses: [400, 401, 403] });
  let ws: TestWorkspace;
  const ids: Record<string, string> = {};

  before(async () => {
    ws = await createWorkspace();
    for (const slug of ['hub', 'a', 'b']) ids[slug] = (await createNode(ws, { title: `${slug} topic`, slug })).id;
    await link(ws, ids.a, ids.hub, 'requires');
    await link(ws, ids.b, ids.hub, 'references');
  });

  it('is reached from the header, forgets a refused token with a message, and keeps a good one in this tab only until Sign out', async () => {
    const { page, context } = await chromium.tab();
    await page.goto(consoleUrl('/'));
    await page.getByRole('banner').getByRole('link', { name: 'Cypher' }).click();
    await page.getByLabel('Analyst token').waitFor();
    expect(new URL(page.url()).pathname).to.equal('/console/cypher');

    await page.getByLabel('Analyst token').fill('not-the-analyst-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').getByText('The service did not accept this token').waitFor();
    await page.getByLabel('Analyst token').waitFor();
    expect(await page.evaluate(() => sessionStorage.getItem('playbooks-console.analyst-token'))).to.equal(null);

    await page.getByLabel('Analyst token').fill(analystToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out of Cypher' }).waitFor();
    expect(await page.evaluate(() => sessionStorage.getItem('playbooks-console.analyst-token'))).to.equal(analystToken);
    expect(page.url()).not.to.contain(analystToken);
    expect(await context.cookies()).to.deep.equal([]);
    // A reload keeps the tab signed in.
    await page.reload();
    await page.getByRole('button', { name: 'Sign out of Cypher' }).click();
    await page.getByText('You are signed out of the Cypher page.').waitFor();
    expect(await page.evaluate(() => sessionStorage.getItem('playbooks-console.analyst-token'))).to.equal(null);
  });

  it('runs a query with Ctrl+Enter into a table and a graph, downloads its CSV and shows the schema', async () => {
    const { page } = await chromium.tab();
    await signInAsAnalyst(page);

    // The schema panel, read through the same endpoint.
    const schema = page.getByTestId('cypher-schema');
    await schema.getByRole('button', { name: 'Query label ContextNode' }).waitFor();
    await schema.getByRole('button', { name: 'Query relationship type REQUIRES' }).waitFor();
    await schema.getByText(/^Indexes \(\d+\)$/).click();
    await schema.getByText(/^Constraints \(\d+\)$/).click();
    expect(await schema.locator('.cypher-schema-list li').count()).to.be.greaterThan(0);

    await setQuery(page, 'MATCH (n:ContextNode {workspaceId: $ws})-[r]->(m:ContextNode)\nRETURN n, r, m\nORDER BY n.slug');
    await page.getByLabel('Parameters (JSON)').fill(JSON.stringify({ ws: ws.workspaceId }));
    await page.getByTestId('cypher-input').click();
    await page.keyboard.press('Control+Enter');
    const table = page.getByTestId('cypher-result-table');
    await table.waitFor();
    expect(await table.locator('thead th').allTextContents()).to.deep.equal(['n', 'r', 'm']);
    const rows = await table.locator('tbody tr').allTextContents();
    expect(rows).to.have.length(2);
    expect(rows[0]).to.contain('(:ContextNode').and.contain('"slug":"a"').and.contain('[:REQUIRES');
    await page.getByText('2 rows in').waitFor();

    await page.getByRole('group', { name: 'View' }).getByRole('button', { name: 'Graph' }).click();
    const graph = page.locator('[data-testid="cypher-graph"][data-ready="true"]');
    await graph.waitFor({ timeout: 30_000 });
    expect(await graph.getAttribute('data-node-count')).to.equal('3');
    expect(await graph.getAttribute('data-edge-count')).to.equal('2');
    await page.getByRole('group', { name: 'View' }).getByRole('button', { name: 'Table' }).click();
    await table.waitFor();

    // CSV of the query as it ran, from the service.
    await setQuery(page, 'MATCH (n:ContextNode {workspaceId: $ws}) RETURN n.slug AS slug, n.title AS title ORDER BY slug');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByText('3 rows in').waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    expect(download.suggestedFilename()).to.equal('cypher-result.csv');
    const csv = readFileSync((await download.path())!, 'utf8');
    expect(parse(csv, { columns: true })).to.deep.equal([
      { slug: 'a', title: 'a topic' },
      { slug: 'b', title: 'b topic' },
      { slug: 'hub', title: 'hub topic' },
    ]);

    // A label in the schema panel puts a query for it in the editor.
    await schema.getByRole('button', { name: 'Query label ContextNode' }).click();
    expect(await page.getByTestId('cypher-input').textContent()).to.contain('MATCH (n:ContextNode)');
  });

  it('shows a refused write with the service’s reason, and a syntax error with its position', async () => {
    const { page } = await chromium.tab();
    await signInAsAnalyst(page);
    const write = 'MATCH (n:ContextNode) SET n.touched = true RETURN n';
    const refused = problem(await request('POST', '/api/v1/admin/cypher', { token: analystToken, body: { query: write } }), 403, 'query_refused');
    await setQuery(page, write);
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    const alert = page.getByTestId('cypher-error');
    await alert.getByText('Refused:').waitFor();
    expect(await alert.textContent()).to.contain(refused.detail);
    expect(await alert.getAttribute('role')).to.equal('alert');

    await setQuery(page, 'MATCH (n)\nRETRUN n');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await alert.getByText('Invalid Cypher:').waitFor();
    await alert.getByText('At line 2, column 1.').waitFor();
    await alert.getByRole('button', { name: 'Show in the editor' }).click();
    // The cursor went to the error's offset: the start of line 2.
    expect(await page.evaluate(() => getSelection()?.anchorNode?.textContent)).to.contain('RETRUN');

    // Bad parameters never leave the page.
    await page.getByLabel('Parameters (JSON)').fill('{not json');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByRole('alert').getByText('Parameters: not JSON').waitFor();
  });

  it('runs a saved report in a workspace with its parameters, with the same rows as the workspace’s own route', async () => {
    const { page } = await chromium.tab();
    await signInAsAnalyst(page);
    const own = await request('GET', ws.path('/reports/hubs?linkType=requires&limit=5'), { token: ws.owner.key });
    expect(own.status, own.text).to.equal(200);

    await page.getByLabel('Workspace id').fill(ws.workspaceId);
    await page.getByLabel('Report', { exact: true }).selectOption({ label: 'Hubs' });
    await page.getByLabel('linkType', { exact: true }).selectOption('requires');
    await page.getByLabel('limit', { exact: true }).fill('5');
    await page.getByRole('button', { name: 'Run report' }).click();
    const table = page.getByTestId('report-result-table');
    await table.waitFor();
    expect(await table.locator('thead th').allTextContents()).to.deep.equal(own.body.columns);
    const cells = await table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    expect(cells).to.deep.equal(own.body.rows.map((r: unknown[]) => r.map(String)));
    expect(cells).to.deep.equal([[ids.hub, 'hub', 'hub topic', '1', '1', '1']]);

    const section = page.getByRole('region', { name: 'Saved reports' });
    const [download] = await Promise.all([page.waitForEvent('download'), section.getByRole('button', { name: 'Download CSV' }).click()]);
    expect(parse(readFileSync((await download.path())!, 'utf8'), { columns: true })).to.deep.equal([
      { id: ids.hub, slug: 'hub', title: 'hub topic', requiredBy: '1', referencedBy: '1', total: '1' },
    ]);
  });

  for (const viewport of viewports) {
    it(`says a syntax error once, a single row as “1 row”, and a refused write in plain words, at ${viewport.width}×${viewport.height}`, async () => {
      const { page } = await chromium.tab(viewport);
      await signInAsAnalyst(page);
      const alert = page.getByTestId('cypher-error');

      // Neo4j's message once (the problem's errors repeat it for /query), with its excerpt and its place.
      const bad = 'MATCH (n)\nRETRUN n';
      const invalid = problem(await request('POST', '/api/v1/admin/cypher', { token: analystToken, body: { query: bad } }), 400, 'invalid_cypher');
      const said = invalid.detail.split('\n')[0].replace(/\s*\(line \d+, column \d+ \(offset: \d+\)\)/, '');
      expect(invalid.errors?.map((e) => e.message)).to.satisfy((messages: string[]) => messages.some((m) => m.includes(said)));
      await setQuery(page, bad);
      await page.getByRole('button', { name: 'Run', exact: true }).click();
      await alert.getByText('At line 2, column 1.').waitFor();
      const text = (await alert.textContent())!;
      expect(text.split(said).length - 1, text).to.equal(1);
      expect(await alert.locator('pre').textContent()).to.equal(invalid.detail.split('\n').slice(1).join('\n'));

      await setQuery(page, 'RETURN 1 AS one');
      await page.getByRole('button', { name: 'Run', exact: true }).click();
      await page.getByText(/^1 row in \d+ ms$/).waitFor();
      expect(await page.getByText(/\b1 rows\b/).count()).to.equal(0);

      await setQuery(page, 'MATCH (n:ContextNode) SET n.touched = true RETURN n');
      await page.getByRole('button', { name: 'Run', exact: true }).click();
      await alert.getByText('Refused:').waitFor();
      expect(await alert.innerText()).to.equal('Refused: This query writes: only read queries may run here');

      await page.getByLabel('Workspace id').fill(ws.workspaceId);
      await page.getByLabel('Report', { exact: true }).selectOption({ label: 'Hubs' });
      await page.getByLabel('linkType', { exact: true }).selectOption('requires');
      await page.getByRole('button', { name: 'Run report' }).click();
      await page.getByTestId('report-result-table').waitFor();
      await page.getByRole('region', { name: 'Saved reports' }).getByText(/^1 row$/).waitFor();
    });

    it(`has no serious accessibility problem and no sideways scroll at ${viewport.width}×${viewport.height}`, async () => {
      const { page } = await chromium.tab(viewport);
      await page.goto(consoleUrl('/cypher'));
      await page.getByLabel('Analyst token').waitFor();
      expect(await seriousA11yViolations(page)).to.deep.equal([]);
      await page.getByLabel('Analyst token').fill(analystToken);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByTestId('cypher-schema').getByRole('button', { name: 'Query label ContextNode' }).waitFor();

      await setQuery(page, 'MATCH (n:ContextNode {workspaceId: $ws})-[r]->(m)\nRETURN n, r, m');
      await page.getByLabel('Parameters (JSON)').fill(JSON.stringify({ ws: ws.workspaceId }));
      await page.getByRole('button', { name: 'Run', exact: true }).click();
      await page.getByTestId('cypher-result-table').waitFor();
      expect(await overflowsSideways(page)).to.equal(false);
      expect(await seriousA11yViolations(page)).to.deep.equal([]);

      await page.getByRole('group', { name: 'View' }).getByRole('button', { name: 'Graph' }).click();
      await page.locator('[data-testid="cypher-graph"][data-ready="true"]').waitFor({ timeout: 30_000 });
      expect(await overflowsSideways(page)).to.equal(false);
      expect(await seriousA11yViolations(page)).to.deep.equal([]);
      await page.screenshot({ path: path.join(screenshotDir, `cypher-${viewport.width}x${viewport.height}.png`), fullPage: true });
    });
  }
});
