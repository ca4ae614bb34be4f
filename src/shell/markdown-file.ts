import { parse as parseYaml } from 'yaml';
import { legacySlugBase, slugBase } from '../api/slug.js';
import { linkTypes } from '../nodes/link-types.js';
import { proseOf } from '../nodes/wikilinks.js';

/**
 * One markdown file of a folder that is imported (vault.ts): the slug its path gives, its YAML front matter, the
 * typed links that front matter names and the tags it gives, read before the file becomes an item (import-item.ts).
 */

/**
 * The slug a file's path gives: the path without `.md`, each folder and the name slugified, joined by `-`
 * (`guides/First Week.md` → `guides-first-week`, `設定/日本語のノート.md` → `設定-日本語のノート`).
 */
export function slugOfPath(relPath: string): string {
  return slugBase(relPath.replace(/\.md$/i, ''), 'node');
}

/** The slug the path gave before slugs spelled out ß, æ, þ … (src/api/slug.ts, legacySlugBase). */
export function legacySlugOfPath(relPath: string): string {
  return legacySlugBase(relPath.replace(/\.md$/i, ''), 'node');
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
  /**
   * The front matter's `sourcePath`, when it gives one: the path the node keeps instead of the file's (the markdown
   * export writes it for a file it had to put under other folders, so that the node keeps its own).
   */
  sourcePath?: string;
  /** Whether the slug is the front matter's own, which is never changed. */
  explicitSlug?: boolean;
  /** Whether the slug is the one the workspace's node of this path already has (kept, so that a re-import finds it). */
  pinnedSlug?: boolean;
  /** Typed-link targets of the front matter that name no file of the folder and are not slugs: not sent, reported. */
  unresolvedNames?: string[];
  /** Set when the slug the path gives was another file's first: that slug and the file that keeps it. */
  renamed?: { insteadOf: string; keptBy: string };
};

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
export function aliasesOf(meta: Record<string, unknown>): unknown[] {
  const value = meta.aliases ?? meta.alias;
  return value === undefined ? [] : (Array.isArray(value) ? value : [value]).filter((v) => !isEmpty(v));
}

/** Front-matter tags: a list, or one text of tags separated by commas or spaces; each without its #. */
export function frontMatterTags(meta: Record<string, unknown>): unknown[] {
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
export type FrontMatterLink = { linkType: string; target: unknown };

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
  const slug = explicitSlug ? (meta.slug as string) : fallbackSlug;
  const scanned: ScannedFile = { path: relPath, slug, explicitSlug, meta, body, links: linksOf(meta) };
  // A sourcePath of the wrong type is the item's error (itemOf validates it with the rest).
  return typeof meta.sourcePath === 'string' ? { ...scanned, sourcePath: meta.sourcePath.normalize('NFC') } : scanned;
}

/** A key written with nothing after it (`description:`), `null`, `''` or `[]`: what people leave in a template. */
function isEmpty(value: unknown): boolean {
  return value === null || value === undefined || (typeof value === 'string' && value.trim() === '') || (Array.isArray(value) && value.length === 0);
}

/** Front matter without its empty values, which count as absent: the field takes the value it has without the key. */
function withoutEmptyValues(meta: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(meta).filter(([, value]) => !isEmpty(value)));
}
