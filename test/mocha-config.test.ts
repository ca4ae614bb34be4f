import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { projectRoot } from '../src/infra/project-root.js';

/**
 * The project's .mocharc.json refuses a run that would pass without testing what it should: a forgotten
 * exclusive test (forbid-only) and a run that found no test at all (fail-zero). Both are mocha's own options;
 * this only guards against their removal. (Running nested mocha processes on throw-away specs to prove them
 * made CI's own accounting of the run see a run of zero tests, so it is not done here.)
 */
describe('the mocha configuration', () => {
  it('sets forbid-only and fail-zero', () => {
    const rc = JSON.parse(readFileSync(path.join(projectRoot, '.mocharc.json'), 'utf8'));
    expect(rc).to.include({ 'forbid-only': true, 'fail-zero': true });
  });
});
