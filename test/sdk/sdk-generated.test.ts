import { spawn } from 'node:child_process';
import { expect } from 'chai';
import { projectRoot } from '../../src/infra/project-root.js';

describe('generated client (sdk/src/generated)', () => {
  it('is what the current OpenAPI document generates: after a route changes, npm run sdk:generate', async function () {
    this.timeout(120_000);
    // A child process: the generator is a build tool, kept out of the process that runs the test service.
    const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/sdk-generate.ts', '--check'], { cwd: projectRoot, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (chunk) => (output += chunk));
      child.stderr.on('data', (chunk) => (output += chunk));
      child.on('error', reject);
      child.on('close', (exit) => resolve({ code: exit, output }));
    });
    expect(code, output).to.equal(0);
  });
});
