import { maxWikilinkName, nameKey } from './wikilinks.js';

/**
 * The names a wikilink can call a node by, and how strongly each names it (docs/graph-model.md, "Wikilinks").
 * A wikilink's key is compared with these in the graph: the node naming it with the lowest rank wins, then the one
 * with the shortest path (fewest folders, then fewest characters, then code-point order), as Obsidian chooses among
 * notes of one name; ids break what is left, so the choice never depends on the order of writes.
 *
 * - rank 0: the slug;
 * - rank 1: the name of a node imported from a file: its file name (without `.md`) and each tail of its path
 *   (`folder/Name`, `a/folder/Name`), as Obsidian names notes;
 * - rank 2: the title (a node made through the API has no other name; an imported note's opening heading may
 *   repeat another note's file name, and the file is what Obsidian links to);
 * - rank 3: each alias.
 */
export interface NodeName {
  key: string;
  rank: number;
  /** Folders above the node's file (0 for a node made through the API, which has no file). */
  depth: number;
  /** Characters of its path (its slug's when it has no file). */
  length: number;
  path: string;
}

export interface Nameable {
  slug: string;
  title: string;
  aliases?: readonly string[];
  sourcePath?: string | null;
}

/** Every name of a node, each key once with its strongest rank. */
export function namesOf(node: Nameable): NodeName[] {
  const path = node.sourcePath ?? node.slug;
  const depth = node.sourcePath ? node.sourcePath.split('/').length - 1 : 0;
  const ranks = new Map<string, number>();
  const add = (name: string, rank: number) => {
    const key = nameKey(name.trim());
    if (key && key.length <= maxWikilinkName && !ranks.has(key)) ranks.set(key, rank);
  };
  add(node.slug, 0);
  if (node.sourcePath) {
    const segments = node.sourcePath.replace(/\.md$/i, '').split('/');
    for (let i = segments.length - 1; i >= 0; i--) add(segments.slice(i).join('/'), 1);
  }
  add(node.title, 2);
  for (const alias of node.aliases ?? []) add(alias, 3);
  return [...ranks].map(([key, rank]) => ({ key, rank, depth, length: path.length, path }));
}

/** Whether a change of these fields can change which wikilinks name the node. */
export function namesChange(fields: Partial<Record<keyof Nameable, unknown>>): boolean {
  return fields.slug !== undefined || fields.title !== undefined || fields.aliases !== undefined || fields.sourcePath !== undefined;
}
