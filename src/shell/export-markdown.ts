import { createReadStream, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseChunked } from '@discoveryjs/json-ext';
import { stringify as toYaml } from 'yaml';
import { AppError } from '../errors.js';
import { type LinkType, linkTypes } from '../nodes/link-types.js';
import { namesOf } from '../nodes/names.js';
import { nameKey } from '../nodes/wikilinks.js';
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
  /** Set when the node could not have the path it asked for (another node had it first): that path. */
  insteadOf?: string;
}

/**
 * One file per live node, in the document's order. Archived nodes are left out: the folder is what the graph
 * holds now, and a folder import of it gives live nodes only. Manual links to an archived node are kept in the
 * front matter all the same, so that importing the folder back into the same workspace does not remove them
 * (an import elsewhere reports them as unresolved), unless the archived node's slug is also a name of a file of
 * the folder: the import reads a front-matter target as a name first, and would point the link at that file.
 */
export function markdownFilesOf(doc: MarkdownSource): MarkdownFile[] {
  const live = doc.nodes.filter((n) => n.status === 'live');
  const paths = placeFiles(live);
  const slugById = new Map(doc.nodes.map((n) => [n.id, n.slug]));
  const liveIds = new Set(live.map((n) => n.id));
  const liveNames = new Set(live.flatMap((n, i) => namesOf({ slug: n.slug, title: n.title, aliases: n.aliases, sourcePath: paths[i].path }).map((name) => name.key)));
  const manual = new Map<string, Map<LinkType, string[]>>();
  for (const l of doc.links) {
    // Wikilinks come back from the content on import; a playbook's links have no file to stand in.
    if (l.origin !== 'manual' || l.sourceType !== 'context_node' || !liveIds.has(l.sourceId)) continue;
    const target = slugById.get(l.targetId);
    if (target === undefined || (!liveIds.has(l.targetId) && liveNames.has(nameKey(target)))) continue;
    const byType = manual.get(l.sourceId) ?? new Map<LinkType, string[]>();
    manual.set(l.sourceId, byType);
    const targets = byType.get(l.linkType) ?? [];
    byType.set(l.linkType, targets);
    if (!targets.includes(target)) targets.push(target);
  }
  return live.map((node, i) => {
    const { path: filePath, insteadOf } = paths[i];
    const text = `---\n${frontMatterOf(node, manual.get(node.id))}---\n${node.content}`;
    return insteadOf === undefined ? { path: filePath, text, slug: node.slug } : { path: filePath, text, slug: node.slug, insteadOf };
  });
}

/** A line that closes front matter for the folder import (vault.ts), as JavaScript's `m` flag sees lines. */
const closingLine = /^(?:---|\.\.\.)[ \t]*$/m;

/**
 * The front matter's YAML: `slug` always (a re-import keeps the node's slug whatever the file is called), then the
 * fields the folder import reads, those at their default left out where the import's default is the same, then
 * the manual links as one key per link type.
 */
function frontMatterOf(node: MarkdownNode, links: Map<LinkType, string[]> | undefined): string {
  const meta: Record<string, unknown> = { slug: node.slug, title: node.title, description: node.description };
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

/** Longest file name made from a slug, in UTF-8 bytes: file systems allow 255, and ` N` may be added. */
const maxNameBytes = 240;

/** Names Windows reserves for devices, whatever extension follows. */
const reservedOnWindows = /^(?:con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])$/i;

/**
 * A file name from a slug (a node made through the API has no file of its own), written anywhere: characters that
 * Windows or macOS refuse in a name become `-`, leading and trailing dots and spaces go, a device name of Windows
 * gets `_`, and a long name is cut (the slug itself is in the front matter).
 */
function nameOfSlug(slug: string): string {
  let name = slug.normalize('NFC').replace(/[<>:"/\\|?*\u0000-\u001f\u007f]/g, '-').replace(/^[.\s]+|[.\s]+$/g, '');
  name = cutToBytes(name, maxNameBytes);
  if (!name) name = 'node';
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
 * import skips dot-files and dot-folders), control characters become `-`, and a name not ending in `.md` gets it.
 * The rest is kept as imported: the path named a real file, and wikilinks may name the node by it. Undefined when
 * nothing is left.
 */
function safeSourcePath(sourcePath: string): string | undefined {
  const parts = sourcePath
    .split(/[/\\]/)
    .map((part) => part.replace(/[\u0000-\u001f\u007f]/g, '-').replace(/^\.+/, ''))
    .filter((part) => part !== '');
  if (!parts.length) return undefined;
  const last = parts.length - 1;
  if (!/\.md$/i.test(parts[last])) parts[last] = `${parts[last]}.md`;
  return parts.join('/');
}

/**
 * The paths taken so far, compared as a file system that ignores case and Unicode normalization would compare them
 * (macOS and Windows do), and with their folders: a file may not stand where a folder is, nor a folder where a file is.
 */
class TakenPaths {
  private readonly files = new Set<string>();
  private readonly folders = new Set<string>();

  private static key = (p: string) => p.normalize('NFC').toLowerCase();

  private static foldersOf(key: string): string[] {
    const parts = key.split('/');
    return parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join('/'));
  }

  /** Whether the file's folders are free of files (numbering the file's name cannot fix that). */
  foldersFree(p: string): boolean {
    return TakenPaths.foldersOf(TakenPaths.key(p)).every((f) => !this.files.has(f));
  }

  fits(p: string): boolean {
    const key = TakenPaths.key(p);
    return !this.files.has(key) && !this.folders.has(key) && this.foldersFree(p);
  }

  add(p: string): void {
    const key = TakenPaths.key(p);
    this.files.add(key);
    for (const f of TakenPaths.foldersOf(key)) this.folders.add(f);
  }
}

/** `notes/Plan.md` → `notes/Plan 2.md`. */
function numbered(p: string, n: number): string {
  const at = p.lastIndexOf('/') + 1;
  const name = p.slice(at);
  const ext = /\.md$/i.exec(name)![0];
  return `${p.slice(0, at)}${name.slice(0, -ext.length)} ${n}${ext}`;
}

/**
 * Each node's path: its own (sourcePath) else its slug's name at the top. No two nodes get one path. Nodes with
 * a path of their own claim first, in document order, then the others: a path is what a re-import finds an
 * imported node by, while a node named after its slug is found by the slug in its front matter. A node whose path
 * is taken gets the first of `name 2.md`, `name 3.md`, … that no node has; one whose folder is another node's file
 * goes to the top under its slug's name.
 */
function placeFiles(nodes: readonly MarkdownNode[]): { path: string; insteadOf?: string }[] {
  const wanted = nodes.map((n) => {
    const own = n.sourcePath ? safeSourcePath(n.sourcePath) : undefined;
    return { own: own !== undefined, path: own ?? nameOfSlug(n.slug) };
  });
  const order = [...wanted.keys()].sort((a, b) => Number(wanted[b].own) - Number(wanted[a].own) || a - b);
  const taken = new TakenPaths();
  const placed: { path: string; insteadOf?: string }[] = new Array(nodes.length);
  for (const i of order) {
    if (!taken.fits(wanted[i].path)) continue;
    taken.add(wanted[i].path);
    placed[i] = { path: wanted[i].path };
  }
  for (const i of order) {
    if (placed[i]) continue;
    const base = taken.foldersFree(wanted[i].path) ? wanted[i].path : nameOfSlug(nodes[i].slug);
    let candidate = base;
    for (let n = 2; !taken.fits(candidate); n += 1) candidate = numbered(base, n);
    taken.add(candidate);
    placed[i] = { path: candidate, insteadOf: wanted[i].path };
  }
  return placed;
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
  /** Nodes written elsewhere than the path they asked for, because another node had it first. */
  renamed: { slug: string; path: string; insteadOf: string }[];
}

/**
 * Downloads the workspace's JSON export and writes its live nodes as markdown files under `outDir`. The folder
 * must be new or empty: files already there could be another export's, edited since, or anything else, and
 * neither overwriting nor keeping them beside the new ones would leave a folder that imports as the workspace is.
 */
export async function exportMarkdown(o: MarkdownExportOptions): Promise<MarkdownExportReport> {
  const dir = path.resolve(o.outDir);
  refuseUsedFolder(dir);
  const doc = await downloadExport(o.workspaceId, o.key);
  const files = markdownFilesOf(doc);
  refuseUsedFolder(dir);
  mkdirSync(dir, { recursive: true });
  for (const f of files) {
    const full = path.join(dir, ...f.path.split('/'));
    const rel = path.relative(dir, full);
    if (rel.startsWith('..') || path.isAbsolute(rel)) throw new Error(`refusing to write ${f.path} outside ${dir}`);
    mkdirSync(path.dirname(full), { recursive: true });
    // `wx`: a file that appeared meanwhile is not overwritten.
    writeFileSync(full, f.text, { flag: 'wx' });
  }
  return {
    dir,
    files: files.length,
    skippedArchived: doc.nodes.length - files.length,
    renamed: files.flatMap((f) => (f.insteadOf === undefined ? [] : [{ slug: f.slug, path: f.path, insteadOf: f.insteadOf }])),
  };
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
