import { createReadStream, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, rmdirSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseChunked } from '@discoveryjs/json-ext';
import { stringify as toYaml } from 'yaml';
import { AppError } from '../errors.js';
import { type LinkType, linkTypes } from '../nodes/link-types.js';
import { type Nameable, namesOf } from '../nodes/names.js';
import { sourcePathProblem } from '../nodes/node-fields.js';
import { type WikilinkAt, nameKey, wikilinkTarget, wikilinksIn } from '../nodes/wikilinks.js';
import { type ExportLinkItem, type ExportNodeItem, exportFormat, exportVersion } from '../transfer/schemas.js';
import { exportToFile, serviceClient } from './connection.js';

/**
 * `npm run cli -- export --workspace ws_… --format markdown --out DIR`: a workspace's live context nodes as a
 * folder of markdown files (docs/import-export.md, "Markdown out") that opens as an Obsidian vault and that the
 * folder import (vault.ts) reads back into the same graph: each node's file at the path it was imported from,
 * its fields and manual links in front matter, its content as stored (its wikilinks recreate the other links).
 */

/** What a file needs of a node; the fields a folder import added later are absent from older exports. */
export type MarkdownNode = Pick<
  ExportNodeItem,
  'id' | 'slug' | 'title' | 'description' | 'content' | 'nodeType' | 'agentSummary' | 'importance' | 'readFirst' | 'edgeCaseOnly' | 'status'
> & { aliases?: readonly string[]; tags?: readonly string[]; sourcePath?: string | null };

export type MarkdownLink = Pick<ExportLinkItem, 'sourceType' | 'sourceId' | 'targetId' | 'linkType' | 'origin'>;

/** The parts of a workspace export (ExportDocument) that the markdown files are made of. */
export interface MarkdownSource {
  nodes: readonly MarkdownNode[];
  links: readonly MarkdownLink[];
}

export interface MarkdownFile {
  /** Relative to the export folder, with `/` between folders. */
  path: string;
  text: string;
  slug: string;
  /** Set when the node could not have the path it asked for (another node had it, or it was no path to write): that path. */
  insteadOf?: string;
}

/**
 * One file per live node, in the document's order. Archived nodes are left out: the folder is what the graph
 * holds now, and a folder import of it gives live nodes only. The folder resolves in Obsidian as the workspace
 * resolves (placeFiles, LinkNames): a wikilink of a content that Obsidian would read otherwise names its target's file
 * instead, its text kept as the label, and a manual link is a front-matter wikilink naming its target's file.
 * Manual links to an archived node are kept in the front matter by slug (no file stands for it), so that importing
 * the folder back into the same workspace does not remove them (an import elsewhere reports them as unresolved),
 * unless the archived node's slug is also a name of a file of the folder: the import reads a front-matter target as
 * a name first, and would point the link at that file.
 */
export function markdownFilesOf(doc: MarkdownSource): MarkdownFile[] {
  const live = doc.nodes.filter((n) => n.status === 'live');
  const placed = placeFiles(live, doc.nodes);
  const names = new LinkNames(doc.nodes, live, placed);
  const liveIndex = new Map(live.map((n, i) => [n.id, i]));
  const slugById = new Map(doc.nodes.map((n) => [n.id, n.slug]));
  const manual = new Map<string, Map<LinkType, string[]>>();
  for (const l of doc.links) {
    // Wikilinks come back from the content on import; a playbook's links have no file to stand in.
    if (l.origin !== 'manual' || l.sourceType !== 'context_node' || !liveIndex.has(l.sourceId)) continue;
    const slug = slugById.get(l.targetId);
    if (slug === undefined) continue;
    const targetIndex = liveIndex.get(l.targetId);
    let target: string;
    if (targetIndex === undefined) {
      if (names.namesAFile(slug)) continue;
      target = slug;
    } else {
      const name = names.nameOf(targetIndex);
      // A target no name reaches in both Obsidian and the import keeps its slug, which the import reaches.
      target = name === undefined ? slug : `[[${name}]]`;
    }
    const byType = manual.get(l.sourceId) ?? new Map<LinkType, string[]>();
    manual.set(l.sourceId, byType);
    const targets = byType.get(l.linkType) ?? [];
    byType.set(l.linkType, targets);
    if (!targets.includes(target)) targets.push(target);
  }
  return live.map((node, i) => {
    const { path: filePath, insteadOf, keepsSourcePath } = placed[i];
    const text = `---\n${frontMatterOf(node, manual.get(node.id), keepsSourcePath)}---\n${bodyOf(node, names.rewrite(i, node.content ?? ''))}`;
    return insteadOf === undefined ? { path: filePath, text, slug: node.slug } : { path: filePath, text, slug: node.slug, insteadOf };
  });
}

/**
 * The content as written after the front matter. A node made through the API gets a final line break when it has
 * none (a file of text ends with one); an imported node's content is its file's, kept as it was.
 */
function bodyOf(node: MarkdownNode, content: string): string {
  if (node.sourcePath || content === '' || /[\r\n]$/.test(content)) return content;
  return `${content}${content.includes('\r\n') ? '\r\n' : '\n'}`;
}

/** A line that closes front matter for the folder import (vault.ts), as JavaScript's `m` flag sees lines. */
const closingLine = /^(?:---|\.\.\.)[ \t]*$/m;

/**
 * The front matter's YAML: `slug` always (a re-import keeps the node's slug whatever the file is called), the
 * node's own `sourcePath` when its file stands elsewhere with its name (a re-import keeps the node's path), then the
 * fields the folder import reads, those at their default left out where the import's default is the same, then the
 * manual links as one key per link type.
 */
function frontMatterOf(node: MarkdownNode, links: Map<LinkType, string[]> | undefined, keepsSourcePath: string | undefined): string {
  const meta: Record<string, unknown> = { slug: node.slug };
  if (keepsSourcePath !== undefined) meta.sourcePath = keepsSourcePath;
  Object.assign(meta, { title: node.title, description: node.description });
  if (node.aliases?.length) meta.aliases = [...node.aliases];
  if (node.tags?.length) meta.tags = [...node.tags];
  meta.nodeType = node.nodeType;
  meta.importance = node.importance;
  if (node.agentSummary !== null) meta.agentSummary = node.agentSummary;
  if (node.readFirst) meta.readFirst = true;
  if (node.edgeCaseOnly) meta.edgeCaseOnly = true;
  for (const linkType of linkTypes) {
    const targets = links?.get(linkType);
    if (targets?.length) meta[linkType] = targets;
  }
  // Long values stay on one line: folding them would only make a diff of two exports noisier.
  const plain = toYaml(meta, { lineWidth: 0 });
  if (!closingLine.test(plain)) return plain;
  // A value holding U+2028 or U+2029 (line separators to that reader, not to YAML) before `---` would end the
  // front matter early: every string is then written double-quoted, with those two escaped.
  return toYaml(meta, { lineWidth: 0, defaultStringType: 'QUOTE_DOUBLE', defaultKeyType: 'PLAIN' })
    .replace(/\u2028/g, '\\L')
    .replace(/\u2029/g, '\\P');
}

/** Longest file or folder name written, in UTF-8 bytes: file systems allow 255, and ` N` may be added. */
const maxNameBytes = 240;

/** Names Windows reserves for devices, whatever extension follows. */
const reservedOnWindows = /^(?:con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])$/i;

/**
 * A file name from a title or a slug (a node made through the API has no file of its own), written anywhere:
 * characters that Windows or macOS refuse in a name, and those that end a wikilink's name in Obsidian (`# ^ [ ] |`),
 * become `-`, leading and trailing dots and spaces go, a device name of Windows gets `_`, and a long name is cut
 * (the slug itself is in the front matter). Undefined when nothing is left.
 */
function nameOfText(text: string): string | undefined {
  let name = text.normalize('NFC').replace(/[<>:"/\\|?*#^[\]\u0000-\u001f\u007f]/g, '-').replace(/^[.\s]+|[.\s]+$/g, '');
  name = cutToBytes(name, maxNameBytes - 3);
  if (!name) return undefined;
  if (reservedOnWindows.test(name)) name = `${name}_`;
  return `${name}.md`;
}

function cutToBytes(text: string, max: number): string {
  if (Buffer.byteLength(text) <= max) return text;
  let out = '';
  let bytes = 0;
  for (const ch of text) {
    bytes += Buffer.byteLength(ch);
    if (bytes > max) break;
    out += ch;
  }
  return out.replace(/[.\s]+$/, '');
}

/**
 * A node's own path made safe to write under the export folder: `\` is a separator too (it is one on Windows),
 * empty, `.` and `..` segments go, so that nothing is written outside the folder, leading dots go (the folder
 * import skips dot-files and dot-folders), control characters become `-`, a name not ending in `.md` gets it, and a
 * name longer than a file system takes is cut. The rest is kept as imported: the path named a real file, and
 * wikilinks may name the node by it. Undefined when nothing is left.
 */
function safeSourcePath(sourcePath: string): string | undefined {
  const parts = sourcePath
    .normalize('NFC')
    .split(/[/\\]/)
    .map((part) => part.replace(/[\u0000-\u001f\u007f]/g, '-').replace(/^\.+/, ''))
    .filter((part) => part !== '');
  if (!parts.length) return undefined;
  const last = parts.length - 1;
  if (!/\.md$/i.test(parts[last])) parts[last] = `${parts[last]}.md`;
  for (let i = 0; i < last; i++) parts[i] = cutToBytes(parts[i], maxNameBytes) || '_';
  const stem = parts[last].slice(0, -3);
  if (Buffer.byteLength(stem) > maxNameBytes - 3) parts[last] = `${cutToBytes(stem, maxNameBytes - 3) || '_'}.md`;
  return parts.join('/');
}

/** The key paths and names are compared by: as a file system that ignores case and Unicode form would, and as names compare. */
const pathKey = (p: string) => nameKey(p);

const foldersOf = (key: string): string[] => {
  const parts = key.split('/');
  return parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join('/'));
};

/**
 * The paths taken so far, compared as a file system that ignores case and Unicode normalization would compare them
 * (macOS and Windows do), and with their folders: a file may not stand where a folder is, nor a folder where a file is.
 */
class TakenPaths {
  private readonly files = new Set<string>();
  private readonly folders = new Set<string>();

  fits(p: string): boolean {
    const key = pathKey(p);
    return !this.files.has(key) && !this.folders.has(key) && foldersOf(key).every((f) => !this.files.has(f));
  }

  add(p: string): void {
    const key = pathKey(p);
    this.files.add(key);
    for (const f of foldersOf(key)) this.folders.add(f);
  }
}

/** `notes/Plan.md` → `notes/Plan 2.md`. */
function numbered(p: string, n: number): string {
  const at = p.lastIndexOf('/') + 1;
  const name = p.slice(at);
  const ext = /\.md$/i.exec(name)![0];
  return `${p.slice(0, at)}${name.slice(0, -ext.length)} ${n}${ext}`;
}

/** A file's name without `.md`: what Obsidian calls the note. */
const noteName = (p: string) => p.slice(p.lastIndexOf('/') + 1).replace(/\.md$/i, '');

interface Placement {
  path: string;
  /** The path the node asked for, when it got another. */
  insteadOf?: string;
  /** The node's own sourcePath, when its file stands under other folders with its own name: the front matter keeps it. */
  keepsSourcePath?: string;
}

/**
 * Each live node's path. A node with a path of its own (sourcePath) keeps it, made safe, and claims first, in
 * document order: a path is what a re-import finds an imported node by, and what wikilinks name it by. A folder of
 * such a path that is another node's file (`a.md` beside `a.md/b.md`) is written as `a.md 2`, … for every file
 * under it: the file keeps its name, which wikilinks use, and its node keeps its path through the front matter. A
 * path still taken (nodes kept from before two live nodes could not share one) gets the first free of `name 2.md`,
 * `name 3.md`, …. A node made through the API is written at the top under its title, as Obsidian names notes, else
 * its slug, else its title numbered: a name no other node has as a slug or a file name, so that each name the
 * workspace reads one way Obsidian reads the same way.
 */
function placeFiles(live: readonly MarkdownNode[], all: readonly MarkdownNode[]): Placement[] {
  const own = live.map((n) => (n.sourcePath ? safeSourcePath(n.sourcePath) : undefined));
  const ownFiles = new Set(own.flatMap((p) => (p === undefined ? [] : [pathKey(p)])));
  const movedFolders = new Map<string, string>();
  /** The path with each folder that is a file of another node renamed `folder 2`, `folder 3`, …, alike for every file under it. */
  const relocated = (p: string): string => {
    const parts = p.split('/');
    let out = '';
    for (let i = 0; i < parts.length - 1; i++) {
      const original = pathKey(parts.slice(0, i + 1).join('/'));
      let folder = movedFolders.get(original);
      if (folder === undefined) {
        folder = out + parts[i];
        for (let n = 2; ownFiles.has(pathKey(folder)); n += 1) folder = `${out}${parts[i]} ${n}`;
        movedFolders.set(original, folder);
      }
      out = `${folder}/`;
    }
    return out + parts[parts.length - 1];
  };

  const taken = new TakenPaths();
  const placed: Placement[] = new Array(live.length);
  const wanted = own.map((p) => (p === undefined ? undefined : relocated(p)));
  // Own paths first, each where it asked to be when it still can, then those taken, numbered.
  live.forEach((_, i) => {
    if (wanted[i] === undefined || !taken.fits(wanted[i]!)) return;
    taken.add(wanted[i]!);
    placed[i] = { path: wanted[i]! };
  });
  live.forEach((_, i) => {
    if (wanted[i] === undefined || placed[i]) return;
    let candidate = wanted[i]!;
    for (let n = 2; !taken.fits(candidate); n += 1) candidate = numbered(wanted[i]!, n);
    taken.add(candidate);
    placed[i] = { path: candidate };
  });
  const claimedSourcePaths = new Set<string>();
  live.forEach((node, i) => {
    if (!placed[i]) return;
    const sourcePath = node.sourcePath!.normalize('NFC');
    const { path: written } = placed[i];
    if (written !== sourcePath) placed[i].insteadOf = node.sourcePath!;
    // The node keeps its own path through the front matter when its file has its name (so that names agree) and no
    // node before it claims that path (the import would refuse a second).
    const key = pathKey(sourcePath);
    if (written !== sourcePath && noteName(written) === noteName(sourcePath) && sourcePathProblem(sourcePath) === undefined && !claimedSourcePaths.has(key)) {
      placed[i].keepsSourcePath = sourcePath;
    }
    claimedSourcePaths.add(key);
  });

  // Names an API node's file may not take: another node's slug (the workspace resolves a slug first) and a file's name.
  const slugs = new Set(all.map((n) => nameKey(n.slug)));
  const fileNames = new Set(placed.filter(Boolean).map((p) => nameKey(noteName(p.path))));
  live.forEach((node, i) => {
    if (own[i] !== undefined) return;
    const ownSlug = nameKey(node.slug);
    const free = (name: string | undefined): name is string => {
      if (name === undefined || !taken.fits(name)) return false;
      const key = nameKey(noteName(name));
      return !fileNames.has(key) && (key === ownSlug || !slugs.has(key));
    };
    const title = nameOfText(node.title);
    const slugName = nameOfText(node.slug);
    const base = title ?? slugName ?? 'node.md';
    let name = [title, slugName, base].find(free);
    for (let n = 2; name === undefined; n += 1) if (free(numbered(base, n))) name = numbered(base, n);
    taken.add(name);
    fileNames.add(nameKey(noteName(name)));
    placed[i] = node.sourcePath ? { path: name, insteadOf: node.sourcePath } : { path: name };
  });
  return placed;
}

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
class LinkNames {
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

export interface MarkdownExportOptions {
  workspaceId: string;
  /** A user key of an owner of the workspace (the JSON export needs one). */
  key: string;
  outDir: string;
}

export interface MarkdownExportReport {
  /** The folder written, as an absolute path. */
  dir: string;
  /** How many files were written: one per live node. */
  files: number;
  /** How many archived nodes were left out. */
  skippedArchived: number;
  /**
   * Nodes written elsewhere than the path they asked for: another node had it first, a folder of it is another
   * node's file, or it was no path a file system takes.
   */
  renamed: { slug: string; path: string; insteadOf: string }[];
}

/**
 * Downloads the workspace's JSON export and writes its live nodes as markdown files under `outDir`. The folder
 * must be new or empty: files already there could be another export's, edited since, or anything else, and
 * neither overwriting nor keeping them beside the new ones would leave a folder that imports as the workspace is.
 * Nothing is left half-written: see writeMarkdownFolder.
 */
export async function exportMarkdown(o: MarkdownExportOptions): Promise<MarkdownExportReport> {
  const dir = path.resolve(o.outDir);
  refuseUsedFolder(dir);
  const doc = await downloadExport(o.workspaceId, o.key);
  const files = markdownFilesOf(doc);
  writeMarkdownFolder(dir, files);
  return {
    dir,
    files: files.length,
    skippedArchived: doc.nodes.length - files.length,
    renamed: files.flatMap((f) => (f.insteadOf === undefined ? [] : [{ slug: f.slug, path: f.path, insteadOf: f.insteadOf }])),
  };
}

/** Longest name of a file or folder, and longest path, in bytes, that file systems take (NAME_MAX, PATH_MAX). */
const nameMaxBytes = 255;
const pathMaxBytes = 4095;

/**
 * Writes `files` as the folder `dir` (new, or empty), whole or not at all: every path is checked before the first file
 * is written (each within the folder, each name and the whole path short enough), the files are written into a new
 * folder beside `dir`, which then takes its place; when anything fails, that folder is removed and `dir` is as it was.
 */
export function writeMarkdownFolder(dir: string, files: readonly { path: string; text: string }[]): void {
  const parent = path.dirname(dir);
  const scratchPrefix = path.join(parent, `.${cutToBytes(path.basename(dir), 100)}.export-`);
  const slack = Buffer.byteLength(scratchPrefix) + 8 - Buffer.byteLength(dir);
  for (const f of files) {
    const full = path.join(dir, ...f.path.split('/'));
    const rel = path.relative(dir, full);
    if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) throw new AppError('invalid_request', `refusing to write ${JSON.stringify(f.path)} outside ${dir}`);
    if (f.path.includes('\0')) throw new AppError('invalid_request', `${JSON.stringify(f.path)} holds a character file systems refuse`);
    const long = rel.split(path.sep).find((part) => Buffer.byteLength(part) > nameMaxBytes);
    if (long !== undefined) throw new AppError('invalid_request', `${JSON.stringify(f.path)} has a name longer than ${nameMaxBytes} bytes, which file systems refuse`);
    if (Buffer.byteLength(full) + Math.max(slack, 0) > pathMaxBytes) throw new AppError('invalid_request', `${full} is longer than ${pathMaxBytes} bytes, which file systems refuse: export into a folder with a shorter path`);
  }
  refuseUsedFolder(dir);
  mkdirSync(parent, { recursive: true });
  const scratch = mkdtempSync(scratchPrefix);
  try {
    for (const f of files) {
      const full = path.join(scratch, ...f.path.split('/'));
      mkdirSync(path.dirname(full), { recursive: true });
      // `wx`: two files of one path would be a fault of the export, not something to overwrite.
      writeFileSync(full, f.text, { flag: 'wx' });
    }
    takePlace(scratch, dir);
  } catch (err) {
    rmSync(scratch, { recursive: true, force: true });
    throw err;
  }
}

/** Moves the written folder to `dir`, which may be there empty (a folder that filled meanwhile is not replaced). */
function takePlace(scratch: string, dir: string): void {
  try {
    renameSync(scratch, dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EEXIST' && code !== 'ENOTEMPTY' && code !== 'EPERM' && code !== 'EISDIR') throw err;
    refuseUsedFolder(dir);
    rmdirSync(dir);
    renameSync(scratch, dir);
  }
}

function refuseUsedFolder(dir: string): void {
  let stats;
  try {
    stats = statSync(dir);
  } catch {
    return;
  }
  if (!stats.isDirectory()) throw new AppError('invalid_request', `${dir} exists and is not a folder`);
  if (readdirSync(dir).length) throw new AppError('invalid_request', `${dir} is not empty: export markdown into a new or empty folder`);
}

/**
 * The JSON export, downloaded to a temporary file and parsed from it in chunks: a workspace's document may be
 * larger than one string may be.
 */
async function downloadExport(workspaceId: string, key: string): Promise<MarkdownSource> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'playbooks-export-'));
  try {
    const file = path.join(tmp, 'export.json');
    await exportToFile(serviceClient(key, workspaceId), file);
    const doc = await parseChunked(createReadStream(file));
    if (doc?.format !== exportFormat || doc.version !== exportVersion || !Array.isArray(doc.nodes) || !Array.isArray(doc.links)) {
      throw new AppError('invalid_request', `The service answered an export this command cannot read (format ${JSON.stringify(doc?.format)}, version ${JSON.stringify(doc?.version)})`);
    }
    return doc as MarkdownSource;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
