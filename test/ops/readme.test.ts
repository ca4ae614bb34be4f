import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { projectRoot } from '../../src/infra/project-root.js';
import { createWorkspace, request, unique } from '../support/api.js';
import { env } from '../support/harness.js';
import { createNode, linkPlaybook } from '../support/nodes.js';
import { createPlaybook } from '../support/playbooks.js';

/** The README's first steps, run as a newcomer copies them, against the run's service. */

const run = promisify(execFile);
const readme = readFileSync(path.join(projectRoot, 'README.md'), 'utf8');

/** The text of the README's section under `heading` (to the next heading of the same or a higher level). */
function section(heading: string): string {
  const at = readme.indexOf(`\n${heading}\n`);
  expect(at, `the README has a section "${heading}"`).to.be.at.least(0);
  const level = /^#+/.exec(heading)![0];
  const rest = readme.slice(at + heading.length + 2);
  const next = rest.search(new RegExp(`^#{1,${level.length}} `, 'm'));
  return next < 0 ? rest : rest.slice(0, next);
}

/** The first code block of `lang` after `after` in the README, as written. */
function blockAfter(after: string, lang: string): string {
  const at = readme.indexOf(after);
  expect(at, `the README has "${after}"`).to.be.at.least(0);
  return new RegExp('```' + lang + '\\n([\\s\\S]*?)```').exec(readme.slice(at))![1];
}

/** A README command line with its placeholders filled in, as a newcomer would. */
const filled = (line: string, values: Record<string, string>) =>
  Object.entries(values).reduce((text, [placeholder, value]) => text.split(placeholder).join(value), line);

describe('the README, as a newcomer follows it', () => {
  it('the first-key command prints its JSON alone, without npm’s own lines', async () => {
    const line = blockAfter('## First key', 'sh').split('\n').find((l) => l.includes('cli -- bootstrap'))!;
    const email = `${unique('readme')}@example.test`;
    const { stdout } = await run('sh', ['-c', filled(line, { 'you@example.com': email })], {
      cwd: projectRoot,
      env: { ...process.env, NEO4J_URI: env.deps.neo4jUri, ...env.deps.redisEnv, LOG_LEVEL: 'silent' },
    });
    const out = JSON.parse(stdout);
    expect(out.user.email).to.equal(email);
    expect(out.key.key).to.match(/^pk_user_/);
  });

  it('the playbook example creates a playbook whose instructions are its text, and approves it', async () => {
    const w = await createWorkspace();
    const lines = blockAfter('A first playbook', 'sh').replace(/\\\n\s*/g, '').trim().split('\n');
    const values = { 'http://localhost:3000': env.service.url, 'pk_user_…': w.owner.key, 'ws_…': w.workspaceId };
    const created = JSON.parse((await run('sh', ['-c', filled(lines[0], values)])).stdout);
    expect(created.versions[0]).to.include({ versionNumber: 1, status: 'draft' });
    expect(created.versions[0].content.instructions).to.match(/^1\. .*\n2\. /);
    const approved = JSON.parse((await run('sh', ['-c', filled(lines[1], { ...values, 'pb_…': created.id, 'pbv_…': created.versions[0].id })])).stdout);
    expect(approved).to.include({ id: created.versions[0].id, status: 'approved' });
  });

  it('the OpenAPI document says what a playbook version’s content holds, with an example', async () => {
    const doc = (await request('GET', '/api/v1/openapi.json')).body;
    const description = doc.components.schemas.PlaybookContent.description as string;
    const example = /such as (\{.*?\})\./.exec(description)?.[1];
    expect(JSON.parse(example ?? 'null')).to.have.property('instructions').that.is.a('string');
  });

  describe('the agent loop', () => {
    let dir: string;
    before(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'readme-agent-'))));
    after(() => rmSync(dir, { recursive: true, force: true }));

    /** The README's sample with the workspace, playbook and service filled in; resolves with its output. */
    async function runSample(workspaceId: string, playbookId: string, key: string): Promise<string> {
      const sample = filled(blockAfter("An agent's loop:", 'ts'), {
        "'@playbooks/client'": `'${path.join(projectRoot, 'sdk', 'src', 'index.ts')}'`,
        "'http://localhost:3000'": `'${env.service.url}'`,
        "'ws_…'": `'${workspaceId}'`,
        "'pb_…'": `'${playbookId}'`,
      });
      const file = path.join(dir, `${unique('loop')}.mts`);
      writeFileSync(file, sample);
      const { stdout } = await run(process.execPath, ['--import', 'tsx', file], { cwd: projectRoot, env: { ...process.env, PLAYBOOKS_KEY: key } });
      return stdout;
    }

    it('runs when the first node of the bundle links nowhere', async () => {
      const w = await createWorkspace();
      const playbook = await createPlaybook(w, w.owner.key, { title: 'Loop with a dead end' });
      const node = await createNode(w, { title: 'A node without links' });
      await linkPlaybook(w, playbook.id, node.id, 'requires');
      const out = await runSample(w.workspaceId, playbook.id, w.owner.key);
      expect(out).to.include('A node without links');
      const feedback = await request('GET', w.path('/context/feedback'), { token: w.owner.key });
      expect(feedback.body.feedback.map((f: { targetId: string }) => f.targetId)).to.deep.equal([playbook.id]);
    });

    it('runs when the playbook has no context at all', async () => {
      const w = await createWorkspace();
      const playbook = await createPlaybook(w, w.owner.key, { title: 'Loop without context' });
      expect(await runSample(w.workspaceId, playbook.id, w.owner.key)).to.include('Loop without context');
    });
  });

  it('says which service the terminal commands reach (API_URL) and that the self-started stores pick free ports', () => {
    expect(section('## Bringing knowledge in and out')).to.match(/`API_URL`[^.]*PORT/);
    expect(readme.slice(0, readme.indexOf('\n## '))).to.match(/Neo4j and redis-server each listen on a\s+loopback\s+port found free at start/);
  });
});
