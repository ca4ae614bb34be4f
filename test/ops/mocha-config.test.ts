import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { projectRoot } from '../../src/infra/project-root.js';

/**
 * The project's .mocharc.json refuses a run that would pass without testing what it should: a forgotten
 * exclusive test (forbid-only) and a run that found no test at all (fail-zero). Both are mocha's own options;
 * this only guards against their removal. Proving them by nested mocha runs inside the suite (one of zero tests,
 * one with an exclusive test) would put such runs into every CI log, so it is not done here.
 */
describe('the mocha configuration', () => {
  it('sets forbid-only and fail-zero', () => {
    const rc = JSON.parse(readFileSync(path.join(projectRoot, '.mocharc.json'), 'utf8'));
    expect(rc).to.include({ 'forbid-only': true, 'fail-zero': true });
  });

  it('runs the tests of every component folder, and the scripts name only test files that exist', () => {
    const { scripts } = JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8'));
    expect(scripts.test).to.include("mocha 'test/**/*.test.ts'");
    expect(readFileSync(path.join(projectRoot, 'scripts', 'test-neo4j-calendar.ts'), 'utf8')).to.include("'test/**/*.test.ts'");
    const named: string[] = scripts['test:redis-topologies'].match(/\btest\/\S+\.test\.ts\b/g) ?? [];
    expect(named, 'the files test:redis-topologies runs').not.to.be.empty;
    for (const file of named) expect(existsSync(path.join(projectRoot, file)), file).to.equal(true);
  });
});
