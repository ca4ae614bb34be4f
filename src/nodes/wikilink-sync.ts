import type { GraphTx } from '../infra/neo4j.js';
import { type Nameable, namesOf } from './names.js';
import type { NodeRepository } from './repository.js';
import { parseWikilinks } from './wikilinks.js';

/** What a write changed that wikilinks depend on: the nodes whose names may have changed, and those whose content did. */
export interface WikilinkChanges {
  named?: (Nameable & { id: string })[];
  contents?: { id: string; content: string | null }[];
}

/**
 * Brings the wikilinks of a write up to date inside its transaction: the changed nodes' names and wikilinks are
 * stored, then every node whose wikilinks may now resolve differently is resolved again: those whose content
 * changed, those renamed (a name they linked to may have been their own), and those linking to a name whose
 * nodes changed. A target created later resolves the links waiting for it this way, whatever name they use.
 */
export async function syncWikilinks(repo: NodeRepository, tx: GraphTx, workspaceId: string, changes: WikilinkChanges, now: string): Promise<void> {
  const named = changes.named ?? [];
  const contents = changes.contents ?? [];
  const waiting = await repo.setNames(tx, workspaceId, named.map((node) => ({ nodeId: node.id, names: namesOf(node) })));
  await repo.setWikilinks(tx, workspaceId, contents.map((node) => ({ nodeId: node.id, links: parseWikilinks(node.content) })));
  const sources = new Set([...contents.map((node) => node.id), ...named.map((node) => node.id), ...waiting]);
  await repo.resolveWikilinks(tx, workspaceId, [...sources], now);
}
