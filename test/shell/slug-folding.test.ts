import { expect } from 'chai';
import { createWorkspace } from '../support/api.js';
import { env } from '../support/harness.js';
import { createNode, nodesBySlug } from '../support/nodes.js';
import { importFolderInto, useVaults } from '../support/vault.js';
import { isSlug, slugify } from '../../src/api/slug.js';

describe('slugs of Latin letters Unicode does not decompose', function () {
  this.timeout(300_000);
  const newVault = useVaults(() => env.service.url);

  it('spells ß, æ, œ, þ, ð and the like as people write them in ASCII, and folds the letters with a stroke as before', () => {
    const cases: [string, string][] = [
      ['Fußnoten', 'fussnoten'],
      ['GROẞE Straße', 'grosse-strasse'],
      ['lagergrænser', 'lagergraenser'],
      ['Ærø', 'aero'],
      ['Œuvre complète', 'oeuvre-complete'],
      ['Þórsmörk', 'thorsmork'],
      ['Guðrún', 'gudrun'],
      ['Łódź, Smørrebrød', 'lodz-smorrebrod'],
      ['Crème Brûlée', 'creme-brulee'],
      ['日本語のノート', '日本語のノート'],
    ];
    for (const [title, slug] of cases) {
      expect(slugify(title), title).to.equal(slug);
      expect(isSlug(slug), slug).to.equal(true);
    }
  });

  it('gives a node made through the API, and a file imported, the spelled-out slug; importing the folder again creates nothing', async () => {
    const workspace = await createWorkspace();
    expect((await createNode(workspace, { title: 'Fußnoten für lagergrænser' })).slug).to.equal('fussnoten-fur-lagergraenser');
    const dir = newVault({ 'Straße.md': '# Straße\n\nSee [[Fußnoten für lagergrænser]].\n' });
    const first = await importFolderInto(workspace, dir);
    expect(first.created).to.deep.equal(['strasse']);
    const again = await importFolderInto(workspace, dir);
    expect(again.created).to.deep.equal([]);
    expect(again.updated).to.deep.equal([]);
    expect(again.renamed).to.deep.equal([]);
  });

  it('finds the node a file became before these letters were spelled out, when that node has no path', async () => {
    const workspace = await createWorkspace();
    // What an import made of `Fußnoten.md` before nodes kept their file's path: the slug with ß as '-'.
    const old = await createNode(workspace, { slug: 'fu-noten', title: 'Fußnoten', description: 'Old import' });
    const dir = newVault({ 'Fußnoten.md': '# Fußnoten\n\nNew text.\n' });
    const report = await importFolderInto(workspace, dir);
    expect(report.created).to.deep.equal([]);
    expect(report.updated).to.deep.equal(['fu-noten']);
    expect(report.renamed).to.deep.equal([]);
    const stored = await nodesBySlug(workspace);
    expect(Object.keys(stored)).to.deep.equal(['fu-noten']);
    expect(stored['fu-noten']).to.include({ id: old.id, sourcePath: 'Fußnoten.md' });
    expect((await importFolderInto(workspace, dir)).unchanged).to.equal(1);
  });
});
