import { expect } from 'chai';
import { QueryCatalog } from '../src/infra/cypher-files.js';
import { linkTypeParams } from '../src/nodes/link-types.js';

describe('link types', () => {
  // The hot statements (rank-bundle, follow) spell the link types out in their patterns, for a typed expansion;
  // everything else gets them as $linkRelTypes. This keeps the spelled-out lists equal to the one definition.
  it('every pattern that names all the link types names exactly those of src/nodes/link-types.ts', () => {
    const catalog = new QueryCatalog();
    const defined = [...linkTypeParams.linkRelTypes].sort();
    let patterns = 0;
    for (const name of catalog.names()) {
      const text = catalog.get(name).replace(/\/\/.*$/gm, '');
      for (const [, union] of text.matchAll(/\[\w*:([A-Z_]+(?:\|[A-Z_]+){3,})\]/g)) {
        patterns += 1;
        expect([...new Set(union.split('|'))].sort(), `${name}: [:${union}]`).to.deep.equal(defined);
      }
    }
    expect(patterns).to.be.greaterThan(0);
  });
});
