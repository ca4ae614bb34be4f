import path from 'node:path';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { toString as textOf } from 'mdast-util-to-string';
import { AppError } from '../errors.js';
import { validatePart, valueAt } from '../api/validation.js';
import { normaliseTags } from '../nodes/node-fields.js';
import { ImportNodeSchema, type ImportNodeInput } from '../nodes/schemas.js';
import { type ScannedFile, aliasesOf, frontMatterTags, inlineTags, scanMarkdownFile } from './markdown-file.js';

/**
 * A scanned markdown file as an item of the bulk import: its title and description (from front matter, else from
 * its first heading and paragraph), tags and typed links, validated as the service validates a single write.
 */

/** One file of the folder: the node it describes, or why it cannot be imported. */
export type VaultFile = { path: string; slug: string; item: ImportNodeInput; error?: undefined } | { path: string; slug: string; error: string; item?: undefined };

/**
 * The front-matter keys that are node fields; every link type is a key too. `aliases` (or Obsidian's older `alias`)
 * and `tags` may be one value or a list; other keys are left as they are in the file's text, not refused.
 */
const fieldKeys = ['slug', 'title', 'description', 'nodeType', 'agentSummary', 'importance', 'readFirst', 'edgeCaseOnly'] as const;

const maxDescription = 2000;

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
  const item: Record<string, unknown> = { slug: meta.slug ?? slug, title, description, content: body, sourcePath: file.sourcePath ?? meta.sourcePath ?? relPath.normalize('NFC') };
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
      // A value of the wrong type for a null-or-string field (agentSummary …) fails each alternative: said once.
      const alternatives = /schema in anyOf|must be null/.test(e.message);
      const message = alternatives
        ? 'has a value of the wrong type'
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
