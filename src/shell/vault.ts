import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { toString as textOf } from 'mdast-util-to-string';
import { parse as parseYaml } from 'yaml';
import { AppError } from '../errors.js';
import { maxBodyBytes } from '../http/json-body.js';
import { firstFreeSlug, slugBase, slugProblem } from '../http/slug.js';
import { validatePart, valueAt } from '../http/validation.js';
import { linkTypes } from '../nodes/link-types.js';
import { type Nameable, namesOf } from '../nodes/names.js';
import { normaliseTags } from '../nodes/node-fields.js';
import { ImportNodeSchema, type ImportNodeInput, nodeTypes } from '../nodes/schemas.js';
import { nameKey, proseOf, wikilinkTarget } from '../nodes/wikilinks.js';

/**
 * A folder of markdown files (a docs folder, an Obsidian vault) read as context nodes for the bulk import
 * (docs/api.md, "Importing a markdown folder"): each `.md` file is one node; YAML front matter gives its fields and
 * typed links; the body is its content, whose [[wikilinks]] the service turns into links as for any content.
 */

/** One file of the folder: the node it describes, or why it cannot be imported. */
export type VaultFile = { path: string; slug: string; item: ImportNodeInput; error?: undefined } | { path: string; slug: string; error: string; item?: undefined };

/**
 * The front-matter keys that are node fields; every link type is a key too. `aliases` (or Obsidian's older `alias`)
 * and `tags` may be one value or a list; other keys are left as they are in the file's text, not refused.
 */
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

/**
 * The slug a file's path gives: the path without `.md`, each folder and the name slugified, joined by `-`
 * (`guides/First Week.md` → `guides-first-week`, `設定/日本語のノート.md` → `設定-日本語のノート`).
 */
export function slugOfPath(relPath: string): string {
  return slugBase(relPath.replace(/\.md$/i, ''), 'node');
}

/**
 * A file read and its front matter parsed: what the import needs of every file before it sends any (the slugs,
 * to refuse two files with one slug, and the typed links' targets, to choose the order of sending). The body is
 * turned into the node's fields later, batch by batch (itemOf).
 */
export type ScannedFile = (
  | { path: string; slug: string; meta: Record<string, unknown>; body: string; links: FrontMatterLink[]; error?: undefined }
  | { path: string; slug: string; error: string; meta?: undefined }
) & {
  /** Whether the slug is the front matter's own, which is never changed. */
  explicitSlug?: boolean;
  /** Whether the slug is the one the workspace's node of this path already has (kept, so that a re-import finds it). */
  pinnedSlug?: boolean;
  /** Typed-link targets of the front matter that name no file of the folder and are not slugs: not sent, reported. */
  unresolvedNames?: string[];
  /** Set when the slug the path gives was another file's first: that slug and the file that keeps it. */
  renamed?: { insteadOf: string; keptBy: string };
};

/** A file larger than one request may be could never be sent: it is refused by its size, before it is read. */
export const maxFileBytes = maxBodyBytes;

/**
 * Reads every file of the folder and its front matter, and gives each file a slug of its own (uniqueSlugs): a file
 * whose path a node of the workspace already has (`pinned`: source path → slug) keeps that node's slug. Typed links
 * are then pointed at slugs (linkTargetsToSlugs).
 */
export function scanVault(dir: string, pinned: ReadonlyMap<string, string> = new Map()): ScannedFile[] {
  const files = markdownFiles(dir).map((rel): ScannedFile => {
    const full = path.join(dir, rel);
    const { size } = statSync(full);
    if (size > maxFileBytes) return { path: rel, slug: slugOfPath(rel), error: `is ${size} bytes; a file may be at most ${maxFileBytes} bytes (the service's request limit)` };
    return scanMarkdownFile(rel, readFileSync(full, 'utf8'));
  });
  const withPins = files.map((f) => {
    const slug = pinned.get(f.path.normalize('NFC'));
    return slug === undefined || f.explicitSlug ? f : { ...f, slug, pinnedSlug: true };
  });
  return linkTargetsToSlugs(stillRenamed(uniqueSlugs(withPins)));
}

/**
 * A file that keeps its node's numbered slug is still reported as renamed, so that every import of a folder says
 * the same: the slug its path gives, and the file (or node) that has it.
 */
function stillRenamed(files: ScannedFile[]): ScannedFile[] {
  const holder = new Map(files.map((f) => [f.slug, f.path]));
  return files.map((f) => {
    const insteadOf = slugOfPath(f.path);
    if (!f.pinnedSlug || f.explicitSlug || f.renamed || f.slug === insteadOf) return f;
    return { ...f, renamed: { insteadOf, keptBy: holder.get(insteadOf) ?? 'a node of the workspace' } };
  });
}

/** What a file can be named by before its body is read: its slug, path, file name, front-matter title and aliases. */
function nameableOf(f: ScannedFile): Nameable {
  const meta = f.meta ?? {};
  return {
    slug: f.slug,
    title: typeof meta.title === 'string' ? meta.title : path.basename(f.path).replace(/\.md$/i, ''),
    aliases: aliasesOf(meta).filter((a): a is string => typeof a === 'string'),
    sourcePath: f.path,
  };
}

/**
 * Which file each name of the folder names, as the service resolves wikilinks (src/nodes/names.ts): the lowest
 * rank, then the shortest path. `files` are given with what they are named by.
 */
export function nameIndex(files: Iterable<Nameable>): Map<string, string> {
  const best = new Map<string, { slug: string; order: [number, number, number, string] }>();
  for (const file of files) {
    for (const name of namesOf(file)) {
      const order: [number, number, number, string] = [name.rank, name.depth, name.length, name.path];
      const held = best.get(name.key);
      if (!held || compareOrder(order, held.order) < 0) best.set(name.key, { slug: file.slug, order });
    }
  }
  return new Map([...best].map(([key, { slug }]) => [key, slug]));
}

function compareOrder(a: [number, number, number, string], b: [number, number, number, string]): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return (a[i] as number) - (b[i] as number);
  return a[3] < b[3] ? -1 : a[3] > b[3] ? 1 : 0;
}

/**
 * Typed links of front matter name their targets as people write them (`requires: "[[Brand Voice]]"`), while the
 * import takes slugs: each target that names a file of the folder becomes that file's slug; one that names none is
 * kept if it is a slug (a node of the workspace may have it), else reported as unresolved and not sent.
 */
export function linkTargetsToSlugs(files: ScannedFile[]): ScannedFile[] {
  const index = nameIndex(files.filter((f) => f.meta).map(nameableOf));
  return files.map((f) => {
    if (!f.meta || !f.links.length) return f;
    const links: FrontMatterLink[] = [];
    const unresolvedNames: string[] = [];
    for (const link of f.links) {
      if (typeof link.target !== 'string') {
        links.push(link);
        continue;
      }
      const name = wikilinkTarget(link.target)?.name;
      const slug = name === undefined ? undefined : index.get(nameKey(name));
      if (slug !== undefined) links.push({ ...link, target: slug });
      else if (slugProblem(link.target) === undefined) links.push(link);
      else unresolvedNames.push(link.target);
    }
    return { ...f, links, ...(unresolvedNames.length ? { unresolvedNames } : {}) };
  });
}

/**
 * One slug per file, the same on every import of the same folder. A front matter's own slug is kept as written,
 * and two files that both give one are both refused, as an explicit slug that is taken is refused by the API. A
 * slug that a path gives goes to the first file in path order that has it; each later file gets the first of
 * `-2`, `-3`, … that no other file has, so that names which slugify alike (`Settings.md` and `settings.md`,
 * `a/b c.md` and `a-b/c.md`, names that differ only in what slugify drops) are all imported. Files refused already
 * hold their slug too, so that fixing one later does not move another file's node.
 */
export function uniqueSlugs(files: ScannedFile[]): ScannedFile[] {
  const explicit = new Map<string, ScannedFile[]>();
  for (const f of files) if (f.explicitSlug || f.pinnedSlug) explicit.set(f.slug, [...(explicit.get(f.slug) ?? []), f]);
  const reserved = new Set(files.map((f) => f.slug));
  const firstWithSlug = new Map<string, string>();
  for (const [slug, [first]] of explicit) firstWithSlug.set(slug, first.path);
  const assigned = new Set<string>();
  const taken = { has: (slug: string) => reserved.has(slug) || assigned.has(slug) };
  return files.map((f): ScannedFile => {
    if (f.explicitSlug || f.pinnedSlug) {
      const same = explicit.get(f.slug)!;
      if (same.length < 2) return f;
      return { path: f.path, slug: f.slug, explicitSlug: true, error: `slug '${f.slug}' is also the slug of ${same.filter((o) => o !== f).map((o) => o.path).join(', ')}` };
    }
    const keptBy = firstWithSlug.get(f.slug);
    if (keptBy === undefined) {
      firstWithSlug.set(f.slug, f.path);
      assigned.add(f.slug);
      return f;
    }
    const slug = firstFreeSlug(f.slug, taken);
    assigned.add(slug);
    return { ...f, slug, renamed: { insteadOf: f.slug, keptBy } };
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

/** A link target as written in front matter: `Name`, `[[Name]]`, `[[Name|label]]` or `Name#heading`. */
function targetOf(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  return value.trim().replace(/^\[\[(.*)\]\]$/, '$1').split('|')[0].split('#')[0].trim().normalize('NFC');
}

/** Front-matter aliases: `aliases` (or Obsidian's older `alias`), one value or a list. */
function aliasesOf(meta: Record<string, unknown>): unknown[] {
  const value = meta.aliases ?? meta.alias;
  return value === undefined ? [] : (Array.isArray(value) ? value : [value]).filter((v) => !isEmpty(v));
}

/** Front-matter tags: a list, or one text of tags separated by commas or spaces; each without its #. */
function frontMatterTags(meta: Record<string, unknown>): unknown[] {
  const value = meta.tags ?? meta.tag;
  if (value === undefined) return [];
  const list = Array.isArray(value) ? value : typeof value === 'string' ? value.split(/[,\s]+/) : [value];
  return list.filter((v) => !isEmpty(v)).map((v) => (typeof v === 'string' ? v.trim().replace(/^#/, '') : v));
}

/**
 * Inline `#tags` of a body, as Obsidian reads them: a # after a space or at the start of a line, then letters,
 * digits, `_`, `-` and `/`, at least one of them not a digit; not in code, not a heading's `# `.
 */
const inlineTag = /(?<=^|\s)#([\p{L}\p{N}\p{M}_\/-]+)/gu;
export function inlineTags(body: string): string[] {
  const tags: string[] = [];
  for (const text of proseOf(body)) {
    for (const match of text.matchAll(inlineTag)) if (/[^\p{N}]/u.test(match[1])) tags.push(match[1]);
  }
  return tags;
}

/** A typed link as front matter writes it; the target is checked with the rest of the item (itemOf). */
type FrontMatterLink = { linkType: string; target: unknown };

/** The typed links of front matter, each link type being a key (a target or a list of them). */
function linksOf(meta: Record<string, unknown>): FrontMatterLink[] {
  const links: FrontMatterLink[] = [];
  for (const linkType of linkTypes) {
    const value = meta[linkType];
    if (value === undefined || value === null) continue;
    for (const target of Array.isArray(value) ? value : [value]) if (!isEmpty(target)) links.push({ linkType, target: targetOf(target) });
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
      meta = withoutEmptyValues((parsed ?? {}) as Record<string, unknown>);
    }
  } catch (err) {
    return { path: relPath, slug: fallbackSlug, error: `invalid front matter: ${(err as Error).message.split('\n')[0]}` };
  }
  const explicitSlug = typeof meta.slug === 'string';
  return { path: relPath, slug: explicitSlug ? (meta.slug as string) : fallbackSlug, explicitSlug, meta, body, links: linksOf(meta) };
}

/** A key written with nothing after it (`description:`), `null`, `''` or `[]`: what people leave in a template. */
function isEmpty(value: unknown): boolean {
  return value === null || value === undefined || (typeof value === 'string' && value.trim() === '') || (Array.isArray(value) && value.length === 0);
}

/** Front matter without its empty values, which count as absent: the field takes the value it has without the key. */
function withoutEmptyValues(meta: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(meta).filter(([, value]) => !isEmpty(value)));
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
 * The first top-level block and the first paragraph of a body, those of them that are needed (for a title or a
 * description that front matter does not give). Parsing a whole body costs more than all the rest of the import's
 * client side, and these blocks are nearly always in its first lines: so a prefix ending before a blank line is
 * parsed first, growing until what is needed is found. A top-level block is of the same kind and a heading or
 * paragraph is parsed the same whatever follows the blank line after it; only link reference definitions
 * (`[label]: url`), which may stand anywhere and change the text of the links that use them, reach back, so a body
 * that may have one is parsed whole.
 */
function leadingBlocks(body: string, need: { first: boolean; paragraph: boolean }): { first?: Block; paragraph?: Block } {
  const whole = body.includes(']:');
  for (let size = 0; ; size = Math.max(1024, size * 8)) {
    let prefix = body;
    if (!whole && size < body.length) {
      blankLine.lastIndex = size;
      const blank = blankLine.exec(body);
      if (blank) prefix = body.slice(0, blank.index + 1);
    }
    const { children } = fromMarkdown(prefix);
    const first = children[0];
    const paragraph = children.find((n) => n.type === 'paragraph');
    if (prefix === body || ((first || !need.first) && (paragraph || !need.paragraph))) return { first, paragraph };
  }
}

/**
 * A scanned file as an import item. The title is the front matter's, else the text of a level-1 heading that opens
 * the body (a heading further down names a section, not the note), else the file name as written. The description
 * is the front matter's, else the first paragraph's text, else the title.
 */
export function itemOf(file: ScannedFile & { meta: Record<string, unknown> }): VaultFile {
  const { path: relPath, slug, meta, body, links } = file;
  const fileName = path.basename(relPath).replace(/\.md$/i, '').normalize('NFC');
  const need = { first: meta.title === undefined, paragraph: meta.description === undefined };
  const { first, paragraph } = need.first || need.paragraph ? leadingBlocks(body, need) : {};
  const opening = first?.type === 'heading' && first.depth === 1 ? textOf(first).trim() : '';
  const title = meta.title ?? (opening || fileName);
  let description = meta.description;
  if (description === undefined) {
    const text = paragraph ? textOf(paragraph).replace(/\s+/g, ' ').trim() : '';
    // A title of the wrong type is reported as such; the description falling back to it would only repeat that.
    description = text.length > maxDescription ? `${text.slice(0, maxDescription - 1)}…` : text || (typeof title === 'string' ? title : fileName);
  }
  // A slug of the wrong type is the file's error, not a reason to fall back to the one its path gives.
  const item: Record<string, unknown> = { slug: meta.slug ?? slug, title, description, content: body, sourcePath: relPath.normalize('NFC') };
  for (const key of fieldKeys) if (key !== 'slug' && key !== 'title' && key !== 'description' && meta[key] !== undefined) item[key] = meta[key];
  const aliases = aliasesOf(meta);
  if (aliases.length) item.aliases = aliases;
  const tags = [...frontMatterTags(meta), ...inlineTags(body)];
  // The same tag written twice (or as #Tag and #tag) is one tag: said once, so that it counts once against the limit.
  if (tags.length) item.tags = tags.every((t) => typeof t === 'string') ? normaliseTags(tags as string[]) : tags;
  item.links = links;
  const refused = (reason: string): VaultFile => ({ path: relPath, slug, error: reason });
  let valid: ImportNodeInput;
  try {
    valid = validatePart<ImportNodeInput>(ImportNodeSchema, item, 'body');
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    const reasons = new Map<string, string>();
    for (const e of err.errors ?? []) {
      // A value outside a list of literals (nodeType, agentSummary's null-or-string …) fails each alternative: said once.
      const alternatives = /equal to constant|schema in anyOf|must be null/.test(e.message);
      const allowed = e.path.endsWith('/nodeType') ? nodeTypes : e.path.endsWith('/linkType') ? linkTypes : undefined;
      const message = alternatives
        ? allowed ? `must be one of: ${allowed.join(', ')}` : 'has a value of the wrong type'
        : /^must be (string|number|integer|boolean|array|object)$/.test(e.message) ? `${e.message}, not ${kindOf(valueAt(item, e.path))}`
          : e.message;
      if (!reasons.has(e.path) || !alternatives) reasons.set(e.path, `${fieldName(e.path)} ${message}`);
    }
    return refused([...reasons.values()].join('; ') || err.message);
  }
  return { path: relPath, slug, item: valid };
}

/** What a front-matter value is, for a reason: `a number (2024)`, `a list`, … */
function kindOf(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (value !== null && typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return 'text';
  const shown = String(value);
  return `a ${typeof value === 'boolean' ? 'true/false value' : typeof value} (${shown.length > 40 ? `${shown.slice(0, 40)}…` : shown})`;
}

/** `/links/2/target` → `links[2].target`, `/title` → `title`. */
function fieldName(pointer: string): string {
  return pointer.slice(1).split('/').map((p, i) => (/^\d+$/.test(p) ? `[${p}]` : i === 0 ? p : `.${p}`)).join('') || 'file';
}
