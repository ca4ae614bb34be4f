import { expect } from 'chai';
import { type TestWorkspace, createWorkspace, unique } from '../support/api.js';
import { createAgent } from '../support/agents.js';
import { beginAuthorization, registerClient } from '../support/oauth.js';
import { consoleInChromium, consoleUrl, signIn } from './browser.js';
import { overflowsSideways, seriousA11yViolations } from './page-checks.js';

const viewports = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
] as const;

describe('the console’s consent page and connected apps, in Chromium', function () {
  this.timeout(120_000);
  // The page asks the API about the request and the key: a 404 (unknown request) or 403 (an agent's key) answer is
  // what some of these tests are about, and Chromium logs a line for each.
  const chromium = consoleInChromium({ refusedStatuses: [403, 404] });
  let workspace: TestWorkspace;
  const workspaceName = unique('Consent');

  before(async () => {
    workspace = await createWorkspace({ name: workspaceName });
  });

  for (const viewport of viewports) {
    it(`asks a signed-out person to sign in on the page itself, then says an unknown request is expired or unknown (${viewport.name})`, async () => {
      const { page } = await chromium.tab(viewport);
      await page.goto(consoleUrl('/authorize/unknown-uid'));
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      await page.getByText('An application asks to connect').waitFor();
      await page.getByLabel('User key').fill(workspace.owner.key);
      await page.getByRole('button', { name: 'Sign in' }).click();

      const alert = page.getByRole('alert');
      await alert.getByText('expired or unknown').waitFor();
      // Signing in kept the page where it was, outside any workspace.
      expect(new URL(page.url()).pathname).to.equal('/console/authorize/unknown-uid');
      expect(await page.getByRole('navigation', { name: 'Workspace' }).count()).to.equal(0);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).to.equal('Connect an application');
      expect(await overflowsSideways(page)).to.equal(false);
      expect(await seriousA11yViolations(page)).to.deep.equal([]);
    });

    it(`shows who asks, where the browser returns and the agents to act as, with a new agent as the last choice (${viewport.name})`, async () => {
      const agentName = unique('Consent agent');
      await createAgent(workspace, { name: agentName, role: 'editor' });
      const client = await registerClient(['http://127.0.0.1:8976/callback'], unique('Hosted client'));
      const pending = await beginAuthorization({ client, workspace });

      const { page } = await chromium.tab(viewport);
      await signIn(page, workspace.owner.key, `/authorize/${encodeURIComponent(pending.uid)}`);
      await page.getByRole('heading', { name: `Connect ${client.name} to ${workspaceName}` }).waitFor();
      expect(await page.getByTestId('redirect-host').textContent()).to.equal('127.0.0.1:8976');
      await page.getByText('mcp', { exact: true }).waitFor();

      const actAs = page.getByRole('group', { name: 'Act as' });
      const radios = actAs.getByRole('radio');
      // The first agent is chosen at first; the new agent is the last choice.
      expect(await radios.first().isChecked()).to.equal(true);
      expect(await radios.last().getAttribute('value')).to.equal('new');
      await actAs.getByRole('radio', { name: `${agentName} (editor)` }).waitFor();
      expect(await page.getByLabel('Agent name').count()).to.equal(0);

      await actAs.getByRole('radio', { name: 'A new agent' }).check();
      await page.getByLabel('Agent name').waitFor();
      expect(await page.getByLabel('Role').inputValue()).to.equal('viewer');
      expect(await page.getByRole('button', { name: 'Approve' }).isEnabled()).to.equal(true);
      expect(await page.getByRole('button', { name: 'Deny' }).isEnabled()).to.equal(true);
      expect(await overflowsSideways(page)).to.equal(false);
      expect(await seriousA11yViolations(page)).to.deep.equal([]);
    });
  }

  it('tells a person signed in with an agent key to sign in with their user key, and lets them on the same page', async () => {
    const agent = await createAgent(workspace);
    const { page } = await chromium.tab(viewports[0]);
    await signIn(page, agent.key, '/authorize/unknown-uid');
    await page.getByRole('alert').getByText('sign in with your user key').waitFor();
    await page.getByRole('button', { name: 'Sign in with another key' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(new URL(page.url()).pathname).to.equal('/console/authorize/unknown-uid');
  });

  for (const viewport of viewports) {
    it(`an agent no client is connected to shows the empty connected apps, with where connecting starts (${viewport.name})`, async () => {
      const agentName = unique('Unconnected agent');
      await createAgent(workspace, { name: agentName });
      const { page } = await chromium.tab(viewport);
      await signIn(page, workspace.owner.key, `/w/${workspace.workspaceId}/agents`);
      await page.getByRole('button', { name: agentName }).click();
      const apps = page.getByRole('region', { name: `Connected apps of ${agentName}` });
      await apps.getByRole('heading', { name: 'Connected apps' }).waitFor();
      await apps.getByText('No connected apps. A hosted AI client connects through the MCP endpoint’s sign-in (docs/mcp.md).').waitFor();
      expect(await apps.getByRole('button', { name: /^Revoke/ }).count()).to.equal(0);
      expect(await overflowsSideways(page)).to.equal(false);
    });
  }
});
