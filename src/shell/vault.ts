import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { maxBodyBytes } from '../http/json-body.js';
import { firstFreeSlug, slugProblem } from '../api/slug.js';
import { type Nameable, namesOf } from '../nodes/names.js';
import { nameKey, wikilinkTarget } from '../nodes/wikilinks.js';
import { type FrontMatterLink, type ScannedFile, aliasesOf, legacySlugOfPath, scanMarkdownFile, slugOfPath } from './markdown-file.js';

/**
 * A folder of markdown files (a docs folder, an Obsidian vault) read as context nodes for the bulk import
 * (docs/api.md, "Importing a markdown folder"): each `.md` file is one node; YAML front matter gives its fields and
 * typed links; the body is its content, whose [[wikilinks]] the service turns into links as for any content.
 */

/** Every `.md` file under `dir` (not in dot-folders such as .git or .obsidian), as paths relative to it with `/`, sorted. */
export function markdownFiles(dir: string): string[] {
  const entries = readdirSync(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && e.name.toLowerCase().endsWith('.md'))
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .filter((rel) => !rel.split('/').some((part) => part.startsWith('.')))
    .sort();
}

/** A file larger than one request may be could never be sent: it is refused by its size, before it is read. */
export const maxFileBytes = maxBodyBytes;

/**
 * Reads every file of the folder and its front matter, and gives each file a slug of its own (uniqueSlugs): a file
 * whose path (or front-matter sourcePath) a node of the workspace already has (`pinned`: source path → slug) keeps
 * that node's slug, and so does a file whose path gave, before slugs spelled out ß, æ, þ …, the slug of a node that
 * has no path (`pathless`: the slugs of such nodes; they were imported before nodes kept their file's path). Typed
 * links are then pointed at slugs (linkTargetsToSlugs).
 */
export function scanVault(dir: string, pinned: ReadonlyMap<string, string> = new Map(), pathless: ReadonlySet<string> = new Set()): ScannedFile[] {
  const files = markdownFiles(dir).map((rel): ScannedFile => {
    const full = path.join(dir, rel);
    const { size } = statSync(full);
    if (size > maxFileBytes) return { path: rel, slug: slugOfPath(rel), error: `is ${size} bytes; a file may be at most ${maxFileBytes} bytes (the service's request limit)` };
    return scanMarkdownFile(rel, readFileSync(full, 'utf8'));
  });
  const withPins = files.map((f) => {
    if (f.explicitSlug) return f;
    const slug = pinned.get(f.sourcePath ?? f.path.normalize('NFC')) ?? legacySlugOf(f, pathless);
    return slug === undefined ? f : { ...f, slug, pinnedSlug: true };
  });
  return linkTargetsToSlugs(stillRenamed(uniqueSlugs(withPins)));
}

/** The slug the file's path gave before slugs spelled out ß, æ, þ …, when it differs and a node without a path has it. */
function legacySlugOf(f: ScannedFile, pathless: ReadonlySet<string>): string | undefined {
  if (!pathless.size) return undefined;
  const legacy = legacySlugOfPath(f.path);
  return legacy !== f.slug && pathless.has(legacy) && !pathless.has(f.slug) ? legacy : undefined;
}

/**
 * A file that keeps its node's numbered slug is still reported as renamed, so that every import of a folder says
 * the same: the slug its path gives, and the file (or node) that has it.
 */
function stillRenamed(files: ScannedFile[]): ScannedFile[] {
  const holder = new Map(files.map((f) => [f.slug, f.path]));
  return files.map((f) => {
    const insteadOf = slugOfPath(f.path);
    if (!f.pinnedSlug || f.explicitSlug || f.renamed || f.slug === insteadOf || f.slug === legacySlugOfPath(f.path)) return f;
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
    // Named as its node will be: by the path it keeps.
    sourcePath: f.sourcePath ?? f.path,
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
