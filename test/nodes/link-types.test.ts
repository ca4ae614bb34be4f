import { expect } from 'chai';
import { QueryCatalog } from '../../src/infra/cypher-files.js';
import { linkTypeParams } from '../../src/nodes/link-types.js';

describe('link types', () => {
  // The hot statements (rank-bundle, follow) spell the link types out in their patterns, for a typed expansion;
  // everything else gets them as $linkRelTypes. This keeps the spelled-out lists equal to the one definition.
  it('every pattern that spells out link types names only those of src/nodes/link-types.ts, and some name them all', () => {
    const catalog = new QueryCatalog();
    const defined = [...linkTypeParams.linkRelTypes].sort();
    let patterns = 0;
    let complete = 0;
    for (const name of catalog.names()) {
      const text = catalog.get(name).replace(/\/\/.*$/gm, '');
      for (const [, union] of text.matchAll(/\[\w*:([A-Z_]+(?:\|[A-Z_]+){3,})\]/g)) {
        patterns += 1;
        const named = [...new Set(union.split('|'))].sort();
        expect(defined, `${name}: [:${union}]`).to.include.members(named);
        if (named.length === defined.length) complete += 1;
      }
    }
    expect(patterns).to.be.greaterThan(0);
    expect(complete, 'patterns naming every link type').to.be.greaterThan(0);
  });
});
