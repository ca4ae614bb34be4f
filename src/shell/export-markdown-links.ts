import { type Nameable, namesOf } from '../nodes/names.js';
import { type WikilinkAt, nameKey, wikilinkTarget, wikilinksIn } from '../nodes/wikilinks.js';
import type { MarkdownNode, Placement } from './export-markdown-paths.js';

/**
 * The links of a markdown export (export-markdown.ts) written so that Obsidian and the folder import read each as
 * the node the workspace reads it as, now that the nodes stand at the paths export-markdown-paths.ts gives them.
 */

/** The order in which names choose among nodes: rank, then fewest folders, shortest path, path, then a tie-breaker. */
type NameOrder = [number, number, number, string, string];

function before(a: NameOrder, b: NameOrder): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] < b[i];
  return false;
}

/** Each name key's best node (an index into `nodes`) among the nameables given. */
function nameIndexOf(nodes: readonly (Nameable & { tie: string })[]): Map<string, number> {
  const best = new Map<string, { index: number; order: NameOrder }>();
  nodes.forEach((node, index) => {
    for (const name of namesOf(node)) {
      const order: NameOrder = [name.rank, name.depth, name.length, name.path, node.tie];
      const held = best.get(name.key);
      if (!held || before(order, held.order)) best.set(name.key, { index, order });
    }
  });
  return new Map([...best].map(([key, { index }]) => [key, index]));
}

/**
 * The names of the exported folder, as three readers read them: the workspace now (every node, by slug, file name and
 * path, title and alias: src/nodes/names.ts), Obsidian (by file name, or a path's tail when the name has a folder;
 * among files of one name, the shortest path), and the workspace after the folder is imported (the live nodes named
 * by their files, or the paths their front matter keeps, beside the archived nodes of the workspace it came from).
 */
export class LinkNames {
  private readonly workspace: Map<string, number>;
  private readonly obsidian = new Map<string, { index: number; path: string }>();
  private readonly imported: Map<string, number>;
  private readonly fileNames: Set<string>;
  private readonly liveOf: Map<number, number>;
  private readonly chosen = new Map<number, string | undefined>();

  constructor(all: readonly MarkdownNode[], live: readonly MarkdownNode[], private readonly placed: readonly Placement[]) {
    this.workspace = nameIndexOf(all.map((n) => ({ ...n, tie: n.id })));
    const liveIds = new Map(live.map((n, i) => [n.id, i]));
    this.liveOf = new Map(all.flatMap((n, i) => (liveIds.has(n.id) ? [[i, liveIds.get(n.id)!] as [number, number]] : [])));
    placed.forEach((p, index) => {
      const segments = p.path.replace(/\.md$/i, '').split('/');
      for (let i = segments.length - 1; i >= 0; i--) {
        const key = nameKey(segments.slice(i).join('/'));
        const held = this.obsidian.get(key);
        if (!held || shorterPath(p.path, held.path)) this.obsidian.set(key, { index, path: p.path });
      }
    });
    const asImported = live.map((n, i) => ({ ...n, sourcePath: placed[i].keepsSourcePath ?? placed[i].path, tie: placed[i].path }));
    this.fileNames = new Set(asImported.flatMap((n) => namesOf(n).map((name) => name.key)));
    // Archived nodes too: imported back into their workspace, the files meet them there (indices past the live ones).
    this.imported = nameIndexOf([...asImported, ...all.filter((n) => !liveIds.has(n.id)).map((n) => ({ ...n, tie: n.id }))]);
  }

  /** Whether the folder import reads `name` as a file of the folder (by slug, path, title or alias). */
  namesAFile(name: string): boolean {
    return this.fileNames.has(nameKey(name));
  }

  /** Whether `name` names live node `index` for Obsidian and for the workspace after an import of the folder. */
  private namesBoth(name: string, index: number): boolean {
    const key = nameKey(name.trim());
    return this.obsidian.get(key)?.index === index && this.imported.get(key) === index;
  }

  /**
   * The shortest name of live node `index`'s file (its name, else a tail of its path with folders) that both
   * Obsidian and the import read as that node, and that a wikilink can hold; undefined when none is.
   */
  nameOf(index: number): string | undefined {
    if (this.chosen.has(index)) return this.chosen.get(index);
    const segments = this.placed[index].path.replace(/\.md$/i, '').split('/');
    let found: string | undefined;
    for (let i = segments.length - 1; i >= 0 && found === undefined; i--) {
      const name = segments.slice(i).join('/');
      if (!/[#|[\]^]/.test(name) && wikilinkTarget(name)?.name === name && this.namesBoth(name, index)) found = name;
    }
    this.chosen.set(index, found);
    return found;
  }

  /**
   * Live node `index`'s content with each wikilink that Obsidian or the import would read as another node than the
   * workspace does naming its target's file instead; the text it had stays as its label.
   */
  rewrite(index: number, content: string): string {
    let out = '';
    let at = 0;
    for (const link of wikilinksIn(content)) {
      const target = wikilinkTarget(link.inner);
      if (!target) continue;
      const named = this.workspace.get(nameKey(target.name));
      const to = named === undefined ? undefined : this.liveOf.get(named);
      // A name of no node, or of an archived one (no file stands for it), is left as written.
      if (to === undefined || this.namesBoth(target.name, to)) continue;
      const name = this.nameOf(to);
      if (name === undefined) continue;
      out += content.slice(at, link.start) + `[[${relinked(content, link, name)}]]`;
      at = link.end;
    }
    return at === 0 ? content : out + content.slice(at);
  }
}

/** Shortest path first, as Obsidian chooses among notes of one name: fewest folders, then fewest characters, then code-point order. */
function shorterPath(a: string, b: string): boolean {
  const depth = a.split('/').length - b.split('/').length;
  if (depth) return depth < 0;
  if (a.length !== b.length) return a.length < b.length;
  return a < b;
}

/**
 * The inside of a wikilink that names `name` instead, with the section it named and the text it showed: its label,
 * else what it named as written (an embed shows no label and gets none). In a table row the label's pipe is escaped.
 */
function relinked(content: string, link: WikilinkAt, name: string): string {
  const { inner } = link;
  const pipe = inner.indexOf('|');
  let target = pipe === -1 ? inner : inner.slice(0, pipe);
  const escaped = target.endsWith('\\');
  if (escaped) target = target.slice(0, -1);
  const hash = target.indexOf('#');
  const section = hash === -1 ? '' : target.slice(hash).trimEnd();
  const embed = content[link.start - 1] === '!';
  const label = pipe !== -1 ? inner.slice(pipe + 1) : embed ? undefined : target.trim();
  if (label === undefined) return `${name}${section}`;
  // The line around the link, looked for character by character: only its own line is read.
  let lineStart = link.start;
  while (lineStart > 0 && content[lineStart - 1] !== '\n' && content[lineStart - 1] !== '\r') lineStart -= 1;
  let lineEnd = link.end;
  while (lineEnd < content.length && content[lineEnd] !== '\n' && content[lineEnd] !== '\r') lineEnd += 1;
  // A pipe of the line outside wikilinks makes it a table row.
  const inTable = (content.slice(lineStart, link.start) + content.slice(link.end, lineEnd)).replace(/\[\[[^[\]\n]*\]\]/g, '').includes('|');
  return `${name}${section}${escaped || (pipe === -1 && inTable) ? '\\|' : '|'}${label}`;
}
