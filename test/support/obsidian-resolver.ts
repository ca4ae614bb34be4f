/**
 * Every link of a markdown folder resolved as Obsidian resolves it, from the files alone and on purpose without the
 * service's code: what an exported folder is held to (test/shell/export-obsidian.test.ts).
 *
 * - A note is a `.md` file of the folder outside dot-folders. Its body's wikilinks are read outside code, as
 *   test/support/obsidian-links.ts reads them; its front matter's links are the values `"[[X]]"` of the link-type
 *   keys (a bare value is text to Obsidian, not a link).
 * - `[[X]]` (X without its label, section and `.md`) resolves to the file whose name without `.md` is X, ignoring
 *   case (after Unicode NFC), or, when X has a folder, whose path without `.md` ends with X at a folder boundary.
 *   Titles and aliases name nothing. Among several such files, the shortest path wins (fewest folders, then fewest
 *   characters, then code-point order).
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { targetOf, wikilinksOf } from './obsidian-links.js';

const linkTypeKeys = ['requires', 'references', 'relates-to', 'supersedes', 'index-entry'];

export interface ObsidianLink {
  /** The note the link is in. */
  source: string;
  /** Where it is written: the body, or the front-matter key of its link type. */
  in: 'body' | string;
  /** The `[[…]]`'s inside, as written. */
  written: string;
  /** The note it resolves to, or null. */
  target: string | null;
}

export interface ObsidianFolder {
  /** Every note's path (relative, `/`, NFC) with its front matter. */
  notes: { path: string; meta: Record<string, unknown> }[];
  /** Every wikilink of the folder naming a note's name (not an attachment, not `[[#Heading]]`), resolved. */
  links: ObsidianLink[];
  /** Front-matter link values Obsidian does not read as links (a bare name). */
  bareFrontMatterLinks: { source: string; in: string; value: string }[];
}

const keyOf = (name: string) => name.trim().normalize('NFC').toLowerCase();

function shorter(a: string, b: string): number {
  const depth = a.split('/').length - b.split('/').length;
  if (depth) return depth;
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Obsidian's resolution over a set of note paths: a name's note, or null. */
export function obsidianResolver(paths: readonly string[]): (name: string) => string | null {
  const stems = paths.map((p) => ({ path: p, key: keyOf(p.replace(/\.md$/i, '')) }));
  return (name) => {
    const key = keyOf(name);
    const matches = stems.filter((s) => (key.includes('/') ? s.key === key || s.key.endsWith(`/${key}`) : s.key.slice(s.key.lastIndexOf('/') + 1) === key));
    return matches.map((m) => m.path).sort(shorter)[0] ?? null;
  };
}

function split(text: string): { meta: Record<string, unknown>; body: string } {
  const m = /^---\r?\n([\s\S]*?)^(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/m.exec(text);
  if (!m || m.index !== 0) return { meta: {}, body: text };
  const parsed = parseYaml(m[1]);
  return { meta: parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : {}, body: text.slice(m[0].length) };
}

/** Reads the folder and resolves every link of it. */
export function resolveObsidianFolder(dir: string): ObsidianFolder {
  const files = readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.md$/i.test(e.name))
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .filter((rel) => !rel.split('/').some((part) => part.startsWith('.')))
    .sort();
  const notes = files.map((rel) => ({ rel, ...split(readFileSync(path.join(dir, rel), 'utf8')) }));
  const resolve = obsidianResolver(files.map((f) => f.normalize('NFC')));
  const links: ObsidianLink[] = [];
  const bareFrontMatterLinks: ObsidianFolder['bareFrontMatterLinks'] = [];
  const add = (source: string, where: string, inner: string) => {
    const t = targetOf(inner);
    if ('name' in t) links.push({ source, in: where, written: inner, target: resolve(t.name) });
  };
  for (const note of notes) {
    const source = note.rel.normalize('NFC');
    for (const inner of wikilinksOf(note.body)) add(source, 'body', inner);
    for (const key of linkTypeKeys) {
      const value = note.meta[key];
      for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
        const m = typeof v === 'string' ? /^\s*\[\[(.+)\]\]\s*$/.exec(v) : null;
        if (m) add(source, key, m[1]);
        else bareFrontMatterLinks.push({ source, in: key, value: String(v) });
      }
    }
  }
  return { notes: notes.map((n) => ({ path: n.rel.normalize('NFC'), meta: n.meta })), links, bareFrontMatterLinks };
}
