import type { GraphTx } from '../infra/neo4j.js';
import { type Nameable, type NodeName, namesOf } from './names.js';
import type { NodeRepository } from './repository.js';
import { type Wikilink, parseWikilinks } from './wikilinks.js';

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
  const items = new Map<string, { nodeId: string; names: NodeName[] | null; links: Wikilink[] | null }>();
  const item = (nodeId: string) => items.get(nodeId) ?? items.set(nodeId, { nodeId, names: null, links: null }).get(nodeId)!;
  for (const node of changes.named ?? []) item(node.id).names = namesOf(node);
  for (const node of changes.contents ?? []) item(node.id).links = parseWikilinks(node.content);
  await repo.syncWikilinks(tx, workspaceId, [...items.values()], true, now);
}
