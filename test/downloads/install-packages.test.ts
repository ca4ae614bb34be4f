import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'chai';
import { projectRoot } from '../../src/infra/project-root.js';
import { type TestWorkspace, createWorkspace, request, unique } from '../support/api.js';
import { env } from '../support/harness.js';
import { createNode } from '../support/nodes.js';
import { createPlaybook } from '../support/playbooks.js';

const run = promisify(execFile);
const serviceVersion = JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')).version as string;

/** The same check of the client from either module system: the titles of the workspace's playbooks, as JSON. */
const listTitles = (load: string) => `${load}
const client = new PlaybooksClient({ baseUrl: process.env.BASE_URL, apiKey: process.env.API_KEY, workspaceId: process.env.WORKSPACE });
(async () => {
  const titles = [];
  for await (const playbook of client.playbooks.list()) titles.push(playbook.title);
  console.log(JSON.stringify({ titles, error: typeof PlaybooksError }));
})();
`;

describe('the client and the MCP stdio bridge, installed from the running service with npm', function () {
  // The first request packs each package (a build), then npm installs them and the bridge's dependencies.
  this.timeout(600_000);
  let dir: string;
  let w: TestWorkspace;
  let title: string;

  before(async () => {
    w = await createWorkspace();
    title = unique('Installed');
    await createPlaybook(w, w.owner.key, { title });
    dir = mkdtempSync(path.join(os.tmpdir(), 'playbooks-install-'));
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'install-check', private: true }));
    const urls = ['playbooks-client.tgz', 'playbooks-mcp.tgz'].map((file) => `${env.service.url}/downloads/${file}`);
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...urls], { cwd: dir, maxBuffer: 16 * 1024 * 1024 });
  });

  after(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const installed = (name: string) => JSON.parse(readFileSync(path.join(dir, 'node_modules', name, 'package.json'), 'utf8'));

  it('serves both packages without a key, each of the service’s version, never to be kept by a cache', async () => {
    for (const file of ['playbooks-client.tgz', 'playbooks-mcp.tgz']) {
      const reply = await request('GET', `/downloads/${file}`, { token: '' });
      expect(reply.status, file).to.equal(200);
      expect(reply.headers.get('content-type'), file).to.equal('application/gzip');
      expect(reply.headers.get('cache-control'), file).to.equal('no-store');
      expect(reply.headers.get('content-disposition'), file).to.include(file.replace('.tgz', `-${serviceVersion}.tgz`));
    }
    expect(installed('@playbooks/client').version).to.equal(serviceVersion);
    const bridge = installed('@playbooks/mcp');
    expect(bridge.version).to.equal(serviceVersion);
    expect(bridge.bin).to.deep.equal({ 'playbooks-mcp': 'dist/stdio.js' });
    expect(Object.keys(bridge.dependencies)).to.deep.equal(['@modelcontextprotocol/sdk']);
    // What was installed is JavaScript: nothing of TypeScript is needed to run it.
    expect(readFileSync(path.join(dir, 'node_modules', '@playbooks', 'mcp', 'dist', 'stdio.js'), 'utf8')).to.match(/^#!\/usr\/bin\/env node\n/);
  });

  for (const [kind, file, load] of [
    ['an ES module', 'check.mjs', "import { PlaybooksClient, PlaybooksError } from '@playbooks/client';"],
    ['CommonJS', 'check.cjs', "const { PlaybooksClient, PlaybooksError } = require('@playbooks/client');"],
  ] as const) {
    it(`the installed client loads from ${kind} and calls the service`, async () => {
      writeFileSync(path.join(dir, file), listTitles(load));
      const { stdout } = await run(process.execPath, [file], {
        cwd: dir,
        env: { PATH: process.env.PATH ?? '', BASE_URL: env.service.url, API_KEY: w.owner.key, WORKSPACE: w.workspaceId },
      });
      expect(JSON.parse(stdout)).to.deep.equal({ titles: [title], error: 'function' });
    });
  }

  it('the installed bridge serves the service’s tools over stdio and passes an upstream error through once', async () => {
    const node = await createNode(w, { title: unique('Bridged') });
    const transport = new StdioClientTransport({
      command: path.join(dir, 'node_modules', '.bin', 'playbooks-mcp'),
      env: { PATH: process.env.PATH ?? '', PLAYBOOKS_URL: env.service.url, PLAYBOOKS_API_KEY: w.owner.key, PLAYBOOKS_WORKSPACE: w.workspaceId },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk) => (stderr += chunk));
    const client = new Client({ name: 'install-test', version: '1.0.0' });
    try {
      await client.connect(transport);
      expect(client.getInstructions()).to.be.a('string').and.not.equal('');
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).to.include.members(['list_playbooks', 'get_bundle', 'get_node']);
      const listed: any = await client.callTool({ name: 'list_playbooks', arguments: {} });
      expect(listed.isError, JSON.stringify(listed.content)).to.not.equal(true);
      expect(listed.structuredContent.playbooks.map((p: any) => p.title)).to.deep.equal([title]);

      const completed = await client.complete({ ref: { type: 'ref/resource', uri: 'node://{slug}' }, argument: { name: 'slug', value: '' } });
      expect(completed.completion.values).to.include(node.slug);

      const missing = await client.readResource({ uri: 'node://does-not-exist' }).then(
        () => expect.fail('reading a missing node succeeded'),
        (err: unknown) => err,
      );
      expect(missing).to.be.instanceOf(McpError);
      expect((missing as McpError).code).to.equal(-32002);
      expect((missing as McpError).message).to.match(/^MCP error -32002: /);
      expect((missing as McpError).message.match(/MCP error/g)).to.have.length(1);
    } finally {
      await client.close();
    }
    expect(stderr).to.include(`${serviceVersion} serving`);
    expect(stderr).not.to.include(w.owner.key);
  });
});
