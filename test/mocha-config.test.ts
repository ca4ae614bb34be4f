import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { projectRoot } from '../src/infra/project-root.js';

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
});
