import { createReadStream, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseChunked } from '@discoveryjs/json-ext';
import { stringify as toYaml } from 'yaml';
import { AppError } from '../errors.js';
import { type LinkType, linkTypes } from '../nodes/link-types.js';
import { type ExportLinkItem, exportFormat, exportVersion } from '../transfer/schemas.js';
import { exportToFile, serviceClient } from './connection.js';
import { LinkNames } from './export-markdown-links.js';
import { type MarkdownNode, placeFiles } from './export-markdown-paths.js';
import { refuseUsedFolder, writeMarkdownFolder } from './export-markdown-write.js';

/**
 * `npm run cli -- export --workspace ws_… --format markdown --out DIR`: a workspace's live context nodes as a
 * folder of markdown files (docs/import-export.md, "Markdown out") that opens as an Obsidian vault and that the
 * folder import (vault.ts) reads back into the same graph: each node's file at the path it was imported from,
 * its fields and manual links in front matter, its content as stored (its wikilinks recreate the other links).
 */

export type { MarkdownNode } from './export-markdown-paths.js';
export { writeMarkdownFolder } from './export-markdown-write.js';

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
