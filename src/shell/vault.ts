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

/** Reads and parses every file of the folder; two files with one slug are both refused. */
export function readVault(dir: string): VaultFile[] {
  const files = markdownFiles(dir).map((rel) => parseMarkdownFile(rel, readFileSync(path.join(dir, rel), 'utf8')));
  const bySlug = new Map<string, VaultFile[]>();
  for (const f of files) if (f.item) bySlug.set(f.slug, [...(bySlug.get(f.slug) ?? []), f]);
  return files.map((f) => {
    const same = f.item ? bySlug.get(f.slug)! : [];
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

/** One file as an import item (validated like a single write), or the reason it cannot be one. */
export function parseMarkdownFile(relPath: string, text: string): VaultFile {
  const fallbackSlug = slugOfPath(relPath);
  let frontMatter: string | null;
  let body: string;
  let meta: Record<string, unknown> = {};
  try {
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
  const tree = fromMarkdown(body);
  const heading = tree.children.find((n) => n.type === 'heading');
  const paragraph = tree.children.find((n) => n.type === 'paragraph');
  const baseName = path.basename(relPath).replace(/\.md$/i, '');
  const title = meta.title ?? (heading ? textOf(heading).trim() : '') ?? baseName;
  let description = meta.description;
  if (description === undefined) {
    const text = paragraph ? textOf(paragraph).replace(/\s+/g, ' ').trim() : '';
    description = text.length > maxDescription ? `${text.slice(0, maxDescription - 1)}…` : text || title || baseName;
  }
  const item: Record<string, unknown> = { slug, title: title || baseName, description, content: body };
  for (const key of fieldKeys) if (key !== 'slug' && key !== 'title' && key !== 'description' && meta[key] !== undefined) item[key] = meta[key];
  const links: { linkType: string; target: unknown }[] = [];
  for (const linkType of linkTypes) {
    const value = meta[linkType];
    if (value === undefined || value === null) continue;
    for (const target of Array.isArray(value) ? value : [value]) links.push({ linkType, target: targetOf(target) });
  }
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
