import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { projectRoot } from '../src/infra/project-root.js';

/**
 * The project's .mocharc.json refuses a run that would pass without testing what it should: a forgotten
 * `.only` (forbid-only) and a run that found no test at all (fail-zero). Proved by running mocha with that
 * config on throw-away spec files, minus the global fixture (no Neo4j or Redis is started): about a second.
 */
describe('the mocha configuration', function () {
  this.timeout(60_000);
  let dir = '';
  let config = '';
  const rc = JSON.parse(readFileSync(path.join(projectRoot, '.mocharc.json'), 'utf8'));

  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'mocharc-check-'));
    config = path.join(dir, 'mocharc.json');
    const { require: _fixture, ...withoutFixture } = rc;
    writeFileSync(config, JSON.stringify(withoutFixture));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** Runs mocha with the project's config on one spec file; resolves with its exit code and output. */
  function runMocha(name: string, source: string): Promise<{ code: number; output: string }> {
    const spec = path.join(dir, name);
    writeFileSync(spec, source);
    const bin = path.join(projectRoot, 'node_modules', 'mocha', 'bin', 'mocha.js');
    return new Promise((resolve) => {
      execFile(process.execPath, [bin, '--config', config, spec], { cwd: projectRoot, timeout: 50_000 }, (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        resolve({ code, output: `${stdout}${stderr}` });
      });
    });
  }

  it('sets forbid-only and fail-zero', () => {
    expect(rc).to.include({ 'forbid-only': true, 'fail-zero': true });
  });

  it('a run with an exclusive test (.only) fails, a run with no test fails, and a plain passing run passes', async () => {
    const [plain, only, empty] = await Promise.all([
      runMocha('plain.spec.mjs', "describe('s', () => { it('a', () => {}); it('b', () => {}); });\n"),
      runMocha('only.spec.mjs', "describe('s', () => { it.only('a', () => {}); it('b', () => {}); });\n"),
      runMocha('empty.spec.mjs', "describe('s', () => {});\n"),
    ]);
    expect(plain.code, plain.output).to.equal(0);
    expect(plain.output).to.match(/2 passing/);
    expect(only.code, only.output).not.to.equal(0);
    expect(only.output).to.match(/only/i);
    expect(empty.code, empty.output).not.to.equal(0);
    expect(empty.output).to.match(/\b0 passing/);
  });
});
