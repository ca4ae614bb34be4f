import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { type VaultLinkCount, countVaultLinks } from '../support/obsidian-links.js';
import { exportMarkdown } from '../../src/shell/export-markdown.js';
import type { FolderImportReport } from '../../src/shell/import-folder.js';
import { scanVault } from '../../src/shell/vault.js';
import { type TestWorkspace, createWorkspace } from '../support/api.js';
import { env } from '../support/harness.js';
import { allNodeDetails } from '../support/nodes.js';
import { importFolderInto, useVaults } from '../support/vault.js';

/**
 * Real documentation vaults, as their authors keep them for Obsidian (test/fixtures/vaults/*: each folder's
 * README.md says where it comes from, at which commit, under which licence). Which of their wikilinks name a note
 * is counted from the files alone, by test/support/obsidian-links.ts, which shares no code with the service; the import
 * must turn at least 95% of those (note, note) pairs into links of the graph.
 */

const fixtures = fileURLToPath(new URL('../fixtures/vaults/', import.meta.url));
const vaults = ['quartz', 'foam'] as const;

/** The share of the pairs that must be links in the graph. */
const minShare = 0.95;

/**
 * The node of each file path: by the node's sourcePath, else (a service that does not give it) by the slug the
 * folder import gives the file.
 */
function pathsOfNodes(nodes: any[], dir: string): Map<string, string> {
  const pathOfSlug = new Map(scanVault(dir).map((f) => [f.slug, f.path.normalize('NFC')]));
  const pathOf = new Map<string, string>();
  for (const node of nodes) {
    const p = typeof node.sourcePath === 'string' ? node.sourcePath.normalize('NFC') : pathOfSlug.get(node.slug);
    if (p !== undefined) pathOf.set(node.id, p);
  }
  return pathOf;
}

/** The (source path, target path) pairs of the graph's links between nodes of the vault. */
function graphPairs(nodes: any[], pathOf: Map<string, string>): Set<string> {
  const pairs = new Set<string>();
  for (const node of nodes) {
    const source = pathOf.get(node.id);
    for (const link of node.outgoingLinks as { targetId: string }[]) {
      const target = pathOf.get(link.targetId);
      if (source !== undefined && target !== undefined) pairs.add(`${source} → ${target}`);
    }
  }
  return pairs;
}

/** The titles of the nodes, and the (source title, target title) pairs of their links. */
function titlesAndLinks(nodes: any[]): { titles: string[]; links: string[] } {
  const titles = nodes.map((n) => n.title as string).sort();
  const links = nodes.flatMap((n) => (n.outgoingLinks as { title: string }[]).map((l) => `${n.title} → ${l.title}`));
  return { titles, links: [...new Set(links)].sort() };
}

describe('real vaults as Obsidian reads them', function () {
  this.timeout(180_000);
  useVaults(() => env.service.url);

  for (const name of vaults) {
    describe(`${name} docs`, () => {
      const dir = path.join(fixtures, name, 'docs');
      const expected: VaultLinkCount = countVaultLinks(dir);
      let workspace: TestWorkspace;
      let first: FolderImportReport;

      before(async () => {
        workspace = await createWorkspace();
        first = await importFolderInto(workspace, dir);
      });

      it(`imports every one of its ${expected.notes.length} notes`, () => {
        expect(first.errors).to.deep.equal([]);
        expect(first.aborted).to.equal(false);
        expect(first.files).to.equal(expected.notes.length);
        expect(first.created.length).to.equal(expected.notes.length);
      });

      it(`makes links of at least ${minShare * 100}% of the ${expected.pairs.length} (note, note) pairs its ${expected.namingNotes} wikilinks naming a note give`, async () => {
        expect(expected.pairs.length, 'the fixture has links to check').to.be.greaterThan(100);
        const nodes = await allNodeDetails(workspace);
        const pathOf = pathsOfNodes(nodes, dir);
        expect(pathOf.size, 'every node maps to its file').to.equal(expected.notes.length);
        const inGraph = graphPairs(nodes, pathOf);
        const missing = expected.pairs.map((p) => `${p.source} → ${p.target}`).filter((p) => !inGraph.has(p));
        const share = 1 - missing.length / expected.pairs.length;
        expect(share, `${missing.length} of ${expected.pairs.length} pairs are not links, e.g.\n  ${missing.slice(0, 25).join('\n  ')}\n`).to.be.at.least(minShare);
      });

      it('writes nothing when the same folder is imported again', async () => {
        const again = await importFolderInto(workspace, dir);
        expect(again.errors).to.deep.equal([]);
        expect(again.created).to.deep.equal([]);
        expect(again.updated).to.deep.equal([]);
        expect(again.unchanged).to.equal(expected.notes.length);
      });

      it('comes back with the same notes and links from its markdown export imported into an empty workspace', async () => {
        const out = mkdtempSync(path.join(os.tmpdir(), `export-${name}-`));
        try {
          const exported = await exportMarkdown({ workspaceId: workspace.workspaceId, key: workspace.owner.key, outDir: out });
          expect(exported.files).to.equal(expected.notes.length);
          const copy = await createWorkspace();
          const report = await importFolderInto(copy, out);
          expect(report.errors).to.deep.equal([]);
          const before = titlesAndLinks(await allNodeDetails(workspace));
          const after = titlesAndLinks(await allNodeDetails(copy));
          expect(after.titles).to.deep.equal(before.titles);
          expect(after.links).to.deep.equal(before.links);
        } finally {
          rmSync(out, { recursive: true, force: true });
        }
      });
    });
  }
});
