import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { toString as textOf } from 'mdast-util-to-string';
import { parse as parseYaml } from 'yaml';
import { AppError } from '../errors.js';
import { slugify } from '../http/slug.js';
import { validatePart } from '../http/validation.js';
import { linkTypes } from '../nodes/link-types.js';
import { ImportNodeSchema, type ImportNodeInput, nodeTypes } from '../nodes/schemas.js';

/**
 * A folder of markdown files (a docs folder, an Obsidian vault) read as context nodes for the bulk import
 * (docs/api.md, "Importing a markdown folder"): each `.md` file is one node; YAML front matter gives its fields and
 * typed links; the body is its content, whose [[wikilinks]] the service turns into links as for any content.
 */

/** One file of the folder: the node it describes, or why it cannot be imported. */
export type VaultFile = { path: string; slug: string; item: ImportNodeInput; error?: undefined } | { path: string; slug: string; error: string; item?: undefined };

/** The front-matter keys that are node fields; every link type is a key too. Other keys (tags, aliases, …) are ignored. */
const fieldKeys = ['slug', 'title', 'description', 'nodeType', 'agentSummary', 'importance', 'readFirst', 'edgeCaseOnly'] as const;

const maxDescription = 2000;

/** Every `.md` file under `dir` (not in dot-folders such as .git or .obsidian), as paths relative to it with `/`, sorted. */
export function markdownFiles(dir: string): string[] {
  const entries = readdirSync(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && e.name.toLowerCase().endsWith('.md'))
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .filter((rel) => !rel.split('/').some((part) => part.startsWith('.')))
    .sort();
}

/** The slug a file gets without a `slug` in its front matter: its path without `.md`, each folder and the name slugified, joined by `-`. */
export function slugOfPath(relPath: string): string {
  return relPath.replace(/\.md$/i, '').split('/').map(slugify).filter(Boolean).join('-');
}

/**
 * A file read and its front matter parsed: what the import needs of every file before it sends any (the slugs,
 * to refuse two files with one slug, and the typed links' targets, to choose the order of sending). The body is
 * turned into the node's fields later, batch by batch (itemOf).
 */
export type ScannedFile =
  | { path: string; slug: string; meta: Record<string, unknown>; body: string; links: FrontMatterLink[]; error?: undefined }
  | { path: string; slug: string; error: string; meta?: undefined };

/** Reads every file of the folder and its front matter; two files with one slug are both refused. */
export function scanVault(dir: string): ScannedFile[] {
  const files = markdownFiles(dir).map((rel) => scanMarkdownFile(rel, readFileSync(path.join(dir, rel), 'utf8')));
  const bySlug = new Map<string, ScannedFile[]>();
  for (const f of files) if (f.meta) bySlug.set(f.slug, [...(bySlug.get(f.slug) ?? []), f]);
  return files.map((f) => {
    const same = f.meta ? bySlug.get(f.slug)! : [];
    if (same.length < 2) return f;
    return { path: f.path, slug: f.slug, error: `slug '${f.slug}' is also the slug of ${same.filter((o) => o !== f).map((o) => o.path).join(', ')}` };
  });
}

/** Splits `---` YAML front matter from the body; null front matter when the file has none. */
function splitFrontMatter(text: string): { frontMatter: string | null; body: string } {
  const src = text.replace(/^\uFEFF/, '');
  if (!/^---[ \t]*\r?\n/.test(src)) return { frontMatter: null, body: src };
  const close = /^(?:---|\.\.\.)[ \t]*$/m;
  const afterOpen = src.indexOf('\n') + 1;
  const rest = src.slice(afterOpen);
  const m = close.exec(rest);
  if (!m) throw new Error('front matter opened with --- is never closed');
  const endOfClose = afterOpen + m.index + m[0].length;
  return { frontMatter: rest.slice(0, m.index), body: src.slice(endOfClose).replace(/^\r?\n/, '') };
}

/** A link target as written in front matter: `slug`, `[[slug]]`, `[[slug|label]]` or `slug#heading`. */
function targetOf(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  return value.trim().replace(/^\[\[(.*)\]\]$/, '$1').split('|')[0].split('#')[0].trim();
}

/** A typed link as front matter writes it; the target is checked with the rest of the item (itemOf). */
type FrontMatterLink = { linkType: string; target: unknown };

/** The typed links of front matter, each link type being a key (a target or a list of them). */
function linksOf(meta: Record<string, unknown>): FrontMatterLink[] {
  const links: FrontMatterLink[] = [];
  for (const linkType of linkTypes) {
    const value = meta[linkType];
    if (value === undefined || value === null) continue;
    for (const target of Array.isArray(value) ? value : [value]) links.push({ linkType, target: targetOf(target) });
  }
  return links;
}

/** One file's front matter and body, or why its front matter cannot be read. */
export function scanMarkdownFile(relPath: string, text: string): ScannedFile {
  const fallbackSlug = slugOfPath(relPath);
  let meta: Record<string, unknown> = {};
  let body: string;
  try {
    let frontMatter: string | null;
    ({ frontMatter, body } = splitFrontMatter(text));
    if (frontMatter !== null && frontMatter.trim() !== '') {
      const parsed = parseYaml(frontMatter, { prettyErrors: false });
      if (parsed !== null && (typeof parsed !== 'object' || Array.isArray(parsed))) throw new Error('front matter is not a mapping of field: value');
      meta = (parsed ?? {}) as Record<string, unknown>;
    }
  } catch (err) {
    return { path: relPath, slug: fallbackSlug, error: `invalid front matter: ${(err as Error).message.split('\n')[0]}` };
  }
  const slug = typeof meta.slug === 'string' ? meta.slug : fallbackSlug;
  return { path: relPath, slug, meta, body, links: linksOf(meta) };
}

/** One file as an import item (validated like a single write), or the reason it cannot be one. */
export function parseMarkdownFile(relPath: string, text: string): VaultFile {
  const scanned = scanMarkdownFile(relPath, text);
  return scanned.meta ? itemOf(scanned) : { path: scanned.path, slug: scanned.slug, error: scanned.error };
}

/** A top-level block of a parsed body. */
type Block = ReturnType<typeof fromMarkdown>['children'][number];

/** A blank line: what closes a top-level paragraph or heading for good. */
const blankLine = /\n[ \t]*\r?\n/g;

/**
 * The first top-level heading and paragraph of a body, those of them that are needed (for a title or a
 * description that front matter does not give). Parsing a whole body costs more than all the rest of the import's
 * client side, and these blocks are nearly always in its first lines: so a prefix ending before a blank line is
 * parsed first, growing until what is needed is found. A top-level heading or paragraph is parsed the same
 * whatever follows the blank line after it; only link reference definitions (`[label]: url`), which may stand
 * anywhere and change the text of the links that use them, reach back, so a body that may have one is parsed whole.
 */
function leadingBlocks(body: string, need: { heading: boolean; paragraph: boolean }): { heading?: Block; paragraph?: Block } {
  const whole = body.includes(']:');
  for (let size = 0; ; size = Math.max(1024, size * 8)) {
    let prefix = body;
    if (!whole && size < body.length) {
      blankLine.lastIndex = size;
      const blank = blankLine.exec(body);
      if (blank) prefix = body.slice(0, blank.index + 1);
    }
    const { children } = fromMarkdown(prefix);
    const heading = children.find((n) => n.type === 'heading');
    const paragraph = children.find((n) => n.type === 'paragraph');
    if (prefix === body || ((heading || !need.heading) && (paragraph || !need.paragraph))) return { heading, paragraph };
  }
}

/** A scanned file as an import item: the title and description front matter leaves out come from the body. */
export function itemOf(file: ScannedFile & { meta: Record<string, unknown> }): VaultFile {
  const { path: relPath, slug, meta, body, links } = file;
  const baseName = path.basename(relPath).replace(/\.md$/i, '');
  const need = { heading: meta.title === undefined, paragraph: meta.description === undefined };
  const { heading, paragraph } = need.heading || need.paragraph ? leadingBlocks(body, need) : {};
  const title = meta.title ?? (heading ? textOf(heading).trim() : '') ?? baseName;
  let description = meta.description;
  if (description === undefined) {
    const text = paragraph ? textOf(paragraph).replace(/\s+/g, ' ').trim() : '';
    description = text.length > maxDescription ? `${text.slice(0, maxDescription - 1)}…` : text || title || baseName;
  }
  const item: Record<string, unknown> = { slug, title: title || baseName, description, content: body };
  for (const key of fieldKeys) if (key !== 'slug' && key !== 'title' && key !== 'description' && meta[key] !== undefined) item[key] = meta[key];
  item.links = links;
  try {
    return { path: relPath, slug, item: validatePart<ImportNodeInput>(ImportNodeSchema, item, 'body') };
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    const reasons = new Map<string, string>();
    for (const e of err.errors ?? []) {
      // A value outside a list of literals (nodeType, agentSummary's null-or-string …) fails each alternative: said once.
      const alternatives = /equal to constant|schema in anyOf|must be null/.test(e.message);
      const allowed = e.path.endsWith('/nodeType') ? nodeTypes : e.path.endsWith('/linkType') ? linkTypes : undefined;
      const message = alternatives ? (allowed ? `must be one of: ${allowed.join(', ')}` : 'has a value of the wrong type') : e.message;
      if (!reasons.has(e.path) || !alternatives) reasons.set(e.path, `${fieldName(e.path)} ${message}`);
    }
    return { path: relPath, slug, error: [...reasons.values()].join('; ') || err.message };
  }
}

/** `/links/2/target` → `links[2].target`, `/title` → `title`. */
function fieldName(pointer: string): string {
  return pointer.slice(1).split('/').map((p, i) => (/^\d+$/.test(p) ? `[${p}]` : i === 0 ? p : `.${p}`)).join('') || 'file';
}
