import { nameKey } from '../nodes/wikilinks.js';
import { sourcePathProblem } from '../nodes/node-fields.js';
import type { ExportNodeItem } from '../transfer/schemas.js';

/**
 * Where each node's file of a markdown export (export-markdown.ts) stands and what it is called: paths the file
 * systems of every platform take, one per node however nodes' paths and titles collide, so that the folder imports
 * back as the nodes it was written from.
 */

/** What a file needs of a node; the fields a folder import added later are absent from older exports. */
export type MarkdownNode = Pick<
  ExportNodeItem,
  'id' | 'slug' | 'title' | 'description' | 'content' | 'nodeType' | 'agentSummary' | 'importance' | 'readFirst' | 'edgeCaseOnly' | 'status'
> & { aliases?: readonly string[]; tags?: readonly string[]; sourcePath?: string | null };

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

export function cutToBytes(text: string, max: number): string {
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

export interface Placement {
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
export function placeFiles(live: readonly MarkdownNode[], all: readonly MarkdownNode[]): Placement[] {
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
