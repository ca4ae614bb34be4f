/**
 * Which wikilinks of a markdown vault name one of its notes, computed from the files alone, the way Obsidian
 * reads them, and on purpose without any of the service's code (src/nodes/wikilinks.ts, names.ts, the import's
 * parsing): the count that the import of a real vault is held to (test/shell/real-vaults.test.ts).
 *
 * - A note is a `.md` file of the folder outside dot-folders (`.obsidian`, `.git`, `.foam` …).
 * - A wikilink is `[[target]]` or `![[target]]` in the body (front matter is not read for links), outside code:
 *   fenced and indented code blocks and inline code spans, as a CommonMark parser (mdast-util-from-markdown)
 *   finds them. `target` is `Name`, `Name|label`, `Name\|label` (in a table), `Name#Heading`, `Name#^block`,
 *   `folder/Name`, `/folder/Name` or `Name.md`; `[[#Heading]]` names the note itself and is not counted.
 * - The name is compared after trimming, Unicode NFC and lowercasing, with: the file name without `.md` and each
 *   tail of the file's path (`folder/Name`, `a/folder/Name`) (rank 1), else the front matter's `title` (rank 2),
 *   else one of the front matter's `aliases` (rank 3). Obsidian itself resolves by path and aliases only, so a
 *   title never takes a name from a file that has it. Among notes of the best rank, the one with the shortest path
 *   wins (fewest folders, then fewest characters, then code-point order), as Obsidian chooses among notes of one
 *   name.
 * - A name whose last segment ends in an attachment's extension (`.png`, `.pdf`, `.canvas`, `.base`, audio,
 *   video …) names a file that is not a note: counted apart, never a link.
 * - The result is the distinct (source note, target note) pairs; a note linking to itself is counted apart.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { parse as parseYaml } from 'yaml';

export interface VaultNote {
  /** Relative to the vault, with `/`, in NFC. */
  path: string;
  /** The file name without `.md`. */
  name: string;
  /** The front matter's title, when it gives one. */
  title?: string;
  aliases: string[];
  /** The text after the front matter. */
  body: string;
}

export interface VaultLinkCount {
  notes: VaultNote[];
  /** Every `[[…]]` of the bodies outside code, except `[[#Heading]]`. */
  wikilinks: number;
  /** Those that name a note of the vault (self-links included). */
  namingNotes: number;
  /** Those that name an attachment (an image, a PDF, a canvas …). */
  attachments: number;
  /** Those that name nothing in the vault (not a note, not an attachment). */
  unresolved: number;
  /** Distinct (source path, target path) pairs, source ≠ target, sorted. */
  pairs: { source: string; target: string }[];
  /** Distinct notes that link to themselves (`[[Own name#Section]]`), not in `pairs`. */
  selfLinks: number;
}

const attachmentExtensions = new Set([
  'png', 'jpg', 'jpeg', 'gif', 'bmp', 'svg', 'webp', 'avif', 'ico', 'tif', 'tiff', 'heic',
  'mp3', 'wav', 'm4a', 'ogg', 'oga', '3gp', 'flac', 'aac', 'opus', 'webm', 'mp4', 'ogv', 'mov', 'mkv', 'avi',
  'pdf', 'canvas', 'base', 'excalidraw', 'zip', 'csv', 'json', 'txt', 'docx', 'xlsx', 'pptx',
]);

const key = (name: string) => name.trim().normalize('NFC').toLowerCase();

/** Every note of the vault, in path order. */
export function readVault(dir: string): VaultNote[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.md$/i.test(e.name))
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .filter((rel) => !rel.split('/').some((part) => part.startsWith('.')))
    .sort()
    .map((rel) => noteOf(rel.normalize('NFC'), readFileSync(path.join(dir, rel), 'utf8')));
}

/** One file: its names from the path and front matter, and its body. A front matter that YAML cannot read gives none. */
export function noteOf(relPath: string, text: string): VaultNote {
  const src = text.replace(/^\uFEFF/, '');
  const name = path.posix.basename(relPath).replace(/\.md$/i, '');
  const open = /^---[ \t]*\r?\n/.exec(src);
  const close = open ? /^(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/m.exec(src.slice(open[0].length)) : null;
  if (!open || !close) return { path: relPath, name, aliases: [], body: src };
  const yamlText = src.slice(open[0].length, open[0].length + close.index);
  const body = src.slice(open[0].length + close.index + close[0].length);
  let meta: Record<string, unknown> = {};
  try {
    const parsed = parseYaml(yamlText);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) meta = parsed as Record<string, unknown>;
  } catch {
    // Obsidian shows such a note with no properties; it is still a note with its file name.
  }
  const strings = (v: unknown): string[] => (Array.isArray(v) ? v : v === undefined || v === null ? [] : [v]).filter((s): s is string | number => typeof s === 'string' || typeof s === 'number').map(String).filter((s) => s.trim() !== '');
  const title = typeof meta.title === 'string' && meta.title.trim() ? meta.title : undefined;
  return { path: relPath, name, title, aliases: [...strings(meta.aliases), ...strings(meta.alias)], body };
}

/** The text of `[[…]]` occurrences of a body outside code blocks and inline code, in order. */
export function wikilinksOf(body: string): string[] {
  const prose = withoutCode(body);
  return [...prose.matchAll(/\[\[([^\[\]\n]+?)\]\]/g)].map((m) => m[1]);
}

/** The body with every code block and inline code span blanked out (same length, line breaks kept). */
function withoutCode(body: string): string {
  const ranges: [number, number][] = [];
  const walk = (node: { type: string; position?: { start: { offset?: number }; end: { offset?: number } }; children?: unknown[] }) => {
    if ((node.type === 'code' || node.type === 'inlineCode') && node.position?.start.offset !== undefined && node.position.end.offset !== undefined) {
      ranges.push([node.position.start.offset, node.position.end.offset]);
      return;
    }
    for (const child of (node.children ?? []) as (typeof node)[]) walk(child);
  };
  walk(fromMarkdown(body));
  if (!ranges.length) return body;
  let out = '';
  let at = 0;
  for (const [start, end] of ranges) {
    out += body.slice(at, start) + body.slice(start, end).replace(/[^\n]/g, ' ');
    at = end;
  }
  return out + body.slice(at);
}

/** What one `[[…]]` names: the name (no label, section or `.md`), or that it names no other note. */
export function targetOf(inner: string): { name: string } | { self: true } | { attachment: true } | { empty: true } {
  let target = inner;
  const pipe = target.indexOf('|');
  if (pipe !== -1) target = target.slice(0, pipe);
  target = target.replace(/\\$/, '');
  const hash = target.indexOf('#');
  if (hash !== -1) target = target.slice(0, hash);
  let name = target.trim().normalize('NFC').replace(/^\/+/, '');
  if (!name) return hash !== -1 ? { self: true } : { empty: true };
  if (/\.md$/i.test(name)) name = name.slice(0, -3).trimEnd();
  const last = name.slice(name.lastIndexOf('/') + 1);
  const dot = last.lastIndexOf('.');
  if (dot > 0 && attachmentExtensions.has(last.slice(dot + 1).toLowerCase())) return { attachment: true };
  return { name };
}

/** Shortest path first: fewest folders, then fewest characters, then code-point order. */
function shorter(a: string, b: string): number {
  const depth = a.split('/').length - b.split('/').length;
  if (depth) return depth;
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A lookup of names to notes: a name's best note (lowest rank, then shortest path). */
export function nameIndex(notes: VaultNote[]): (name: string) => VaultNote | undefined {
  const best = new Map<string, { rank: number; note: VaultNote }>();
  const add = (name: string, rank: number, note: VaultNote) => {
    const k = key(name);
    if (!k) return;
    const had = best.get(k);
    if (!had || rank < had.rank || (rank === had.rank && shorter(note.path, had.note.path) < 0)) best.set(k, { rank, note });
  };
  for (const note of notes) {
    const segments = note.path.replace(/\.md$/i, '').split('/');
    for (let i = segments.length - 1; i >= 0; i--) add(segments.slice(i).join('/'), 1, note);
    if (note.title) add(note.title, 2, note);
    for (const alias of note.aliases) add(alias, 3, note);
  }
  return (name) => best.get(key(name))?.note;
}

/** The count for a vault folder (see the top of this file). */
export function countVaultLinks(dir: string): VaultLinkCount {
  const notes = readVault(dir);
  const find = nameIndex(notes);
  const pairs = new Map<string, { source: string; target: string }>();
  const selfLinked = new Set<string>();
  let wikilinks = 0;
  let namingNotes = 0;
  let attachments = 0;
  let unresolved = 0;
  for (const note of notes) {
    for (const inner of wikilinksOf(note.body)) {
      const t = targetOf(inner);
      if ('self' in t) continue;
      wikilinks += 1;
      if ('attachment' in t) attachments += 1;
      else if ('empty' in t) unresolved += 1;
      else {
        const target = find(t.name);
        if (!target) unresolved += 1;
        else {
          namingNotes += 1;
          if (target === note) selfLinked.add(note.path);
          else pairs.set(`${note.path}\n${target.path}`, { source: note.path, target: target.path });
        }
      }
    }
  }
  const sorted = [...pairs.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, p]) => p);
  return { notes, wikilinks, namingNotes, attachments, unresolved, pairs: sorted, selfLinks: selfLinked.size };
}
