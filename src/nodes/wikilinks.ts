/**
 * Wikilinks in a context node's markdown content, read as Obsidian reads them (docs/graph-model.md, "Wikilinks").
 *
 * - `[[Name]]`, `[[Name|label]]`, `![[Name]]` (an embed links like a link), `[[folder/Name]]`, `[[Name.md]]`;
 *   `[[Name#Heading]]` and `[[Name#^block]]` link to the note and keep the section; `[[#Heading]]` names a section
 *   of the note itself and is no link. In a table the label's pipe is escaped (`[[Name\|label]]`).
 * - The name is trimmed and put in Unicode NFC; its key, which resolution compares, is that name lowercased.
 *   Which node a key names (by slug, name, path or alias) is decided in the graph: see names.ts.
 * - A name whose last segment ends in an attachment's extension (an image, audio, video, PDF, `.canvas`, `.base`)
 *   names a file that is not a note, and is no link.
 * - Wikilinks inside fenced code blocks (``` or ~~~, CommonMark rules: up to three spaces of indentation,
 *   closed by a fence of the same character at least as long; an unclosed fence runs to the end) and
 *   inside inline code spans (a run of n backticks closed by the next run of exactly n backticks, within
 *   one paragraph) are not links.
 * - Indented (four-space) code blocks are not recognised: only fences delimit code blocks.
 */

/** How many distinct names one content may link to (each is a relationship written with the node). */
export const maxWikilinkTargets = 1_000;

/** The longest name a wikilink may give: longer text between double brackets is not a link. */
export const maxWikilinkName = 500;

/** The most sections kept for one target, and the longest kept: a section only tells a reader where to look. */
const maxSections = 20;
const maxSectionLength = 200;

/** One target of a content's wikilinks: every wikilink whose name has this key, together. */
export interface Wikilink {
  /** The name lowercased: what resolution compares. */
  key: string;
  /** The name as the first of these wikilinks writes it (trimmed, NFC): what an unresolved link shows. */
  text: string;
  /** The headings (`Heading`) and blocks (`^block`) the wikilinks name, distinct, in order of appearance (the first 20). */
  sections: string[];
}

const wikilinkPattern = /\[\[([^\[\]\n]+?)\]\]/g;
const fenceOpen = /^ {0,3}(`{3,}|~{3,})(.*)$/;

/** Extensions of the files Obsidian shows but that are not notes; a link to one is no link between notes. */
const attachmentExtensions = new Set([
  'png', 'jpg', 'jpeg', 'gif', 'bmp', 'svg', 'webp', 'avif', 'ico', 'tif', 'tiff', 'heic',
  'mp3', 'wav', 'm4a', 'ogg', 'oga', '3gp', 'flac', 'aac', 'opus',
  'mp4', 'webm', 'ogv', 'mov', 'mkv', 'avi',
  'pdf', 'canvas', 'base', 'excalidraw', 'zip', 'csv', 'json', 'txt', 'docx', 'xlsx', 'pptx',
]);

/** The key that names compare by: NFC, then lowercase (what a slug already is). */
export function nameKey(name: string): string {
  return name.normalize('NFC').toLowerCase();
}

/** The target one `[[…]]` names, or undefined when it names no other note. */
export function wikilinkTarget(inner: string): { name: string; section: string | null } | undefined {
  const pipe = inner.indexOf('|');
  const target = (pipe === -1 ? inner : inner.slice(0, pipe)).replace(/\\$/, '');
  const hash = target.indexOf('#');
  let name = (hash === -1 ? target : target.slice(0, hash)).trim().normalize('NFC');
  const section = hash === -1 ? null : target.slice(hash + 1).trim() || null;
  if (/\.md$/i.test(name)) name = name.slice(0, -3).trimEnd();
  if (!name || name.length > maxWikilinkName) return undefined;
  const last = name.slice(name.lastIndexOf('/') + 1);
  const dot = last.lastIndexOf('.');
  if (dot > 0 && attachmentExtensions.has(last.slice(dot + 1).toLowerCase())) return undefined;
  return { name, section };
}

/** The distinct targets the content links to, in order of first appearance. */
export function parseWikilinks(content: string | null | undefined): Wikilink[] {
  if (!content) return [];
  const byKey = new Map<string, Wikilink>();
  for (const { inner } of wikilinksIn(content)) {
    const target = wikilinkTarget(inner);
    if (!target) continue;
    const key = nameKey(target.name);
    let link = byKey.get(key);
    if (!link) byKey.set(key, (link = { key, text: target.name, sections: [] }));
    const { section } = target;
    if (section !== null && section.length <= maxSectionLength && link.sections.length < maxSections && !link.sections.includes(section)) link.sections.push(section);
  }
  return [...byKey.values()];
}

/** One `[[…]]` of a content outside code: where it stands ([start, end) offsets into the content) and its inner text. */
export interface WikilinkAt {
  start: number;
  end: number;
  inner: string;
}

/** Every `[[…]]` of a content outside code, in order, whether or not it names a note: what a rewrite of links edits. */
export function* wikilinksIn(content: string): Iterable<WikilinkAt> {
  for (const paragraph of proseParagraphs(content)) {
    // A wikilink is read before code spans, as Obsidian does: a label may hold code ([[Functions#hasTag|`hasTag`]]);
    // only a wikilink that starts inside a code span is code.
    const spans = codeSpans(paragraph.text);
    let next = 0;
    let line = 0;
    for (const match of paragraph.text.matchAll(wikilinkPattern)) {
      while (next < spans.length && spans[next].end <= match.index) next += 1;
      if (next < spans.length && spans[next].start <= match.index) continue;
      // A wikilink holds no line break, so it lies on one line of the paragraph: its offset is that line's.
      while (line + 1 < paragraph.lines.length && paragraph.lines[line + 1].at <= match.index) line += 1;
      const start = paragraph.lines[line].from + (match.index - paragraph.lines[line].at);
      yield { start, end: start + match[0].length, inner: match[1] };
    }
  }
}

/** The pieces of a content outside fenced code blocks and inline code spans: where links and #tags are read. */
export function* proseOf(content: string): Iterable<string> {
  for (const paragraph of proseParagraphs(content)) yield* outsideCodeSpans(paragraph.text);
}

/**
 * The content outside fenced code blocks, split into paragraphs (runs of non-blank lines, joined by '\n'), each
 * with where its lines start: `at` in the paragraph's text, `from` in the content.
 */
function proseParagraphs(content: string): { text: string; lines: { at: number; from: number }[] }[] {
  const paragraphs: { text: string; lines: { at: number; from: number }[] }[] = [];
  let current: string[] = [];
  let lines: { at: number; from: number }[] = [];
  let at = 0;
  const flush = () => {
    if (current.length) paragraphs.push({ text: current.join('\n'), lines });
    current = [];
    lines = [];
    at = 0;
  };
  let fence: { char: string; length: number } | null = null;
  const lineBreak = /\r\n|\r|\n/g;
  for (let from = 0; from <= content.length; ) {
    lineBreak.lastIndex = from;
    const brk = lineBreak.exec(content);
    const line = content.slice(from, brk ? brk.index : content.length);
    const lineFrom = from;
    from = brk ? brk.index + brk[0].length : content.length + 1;
    if (fence) {
      const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
      if (close && close[1][0] === fence.char && close[1].length >= fence.length) fence = null;
      continue;
    }
    const open = fenceOpen.exec(line);
    // A backtick fence's info string may not contain a backtick (CommonMark), else it is inline code.
    if (open && !(open[1][0] === '`' && open[2].includes('`'))) {
      flush();
      fence = { char: open[1][0], length: open[1].length };
      continue;
    }
    if (line.trim() === '') flush();
    else {
      lines.push({ at, from: lineFrom });
      current.push(line);
      at += line.length + 1;
    }
  }
  flush();
  return paragraphs;
}

/** The pieces of a paragraph outside inline code spans. */
function outsideCodeSpans(paragraph: string): string[] {
  const pieces: string[] = [];
  let start = 0;
  for (const span of codeSpans(paragraph)) {
    pieces.push(paragraph.slice(start, span.start));
    start = span.end;
  }
  pieces.push(paragraph.slice(start));
  return pieces;
}

/**
 * The inline code spans of a paragraph, in order, as [start, end) offsets: a run of n backticks opens a span that
 * the next run of exactly n backticks closes; an unmatched run is literal text, and a backslash before a run
 * escapes its first backtick. Linear in the paragraph: the runs are listed once, and for each length a cursor only
 * moves forward, so looking for a closing run never rescans the text (many unmatched runs would otherwise be
 * quadratic).
 */
function codeSpans(paragraph: string): { start: number; end: number }[] {
  const runs = backtickRuns(paragraph);
  const byLength = new Map<number, number[]>();
  runs.forEach((run, i) => {
    const list = byLength.get(run.length);
    if (list) list.push(i);
    else byLength.set(run.length, [i]);
  });
  const cursors = new Map<number, number>();
  /** The index of the first run after run `i` that has exactly `length` backticks, or -1. */
  const closing = (i: number, length: number) => {
    const same = byLength.get(length) ?? [];
    let c = cursors.get(length) ?? 0;
    while (c < same.length && same[c] <= i) c += 1;
    cursors.set(length, c);
    return c < same.length ? same[c] : -1;
  };
  const spans: { start: number; end: number }[] = [];
  let start = 0;
  for (let i = 0; i < runs.length; i++) {
    let { at, length } = runs[i];
    if (at < start) continue;
    if (paragraph[at - 1] === '\\') {
      at += 1;
      length -= 1;
    }
    const j = length > 0 ? closing(i, length) : -1;
    if (j === -1) continue;
    start = runs[j].at + runs[j].length;
    spans.push({ start: at, end: start });
  }
  return spans;
}

/** Every maximal run of backticks, in order. */
function backtickRuns(text: string): { at: number; length: number }[] {
  const runs: { at: number; length: number }[] = [];
  for (let i = text.indexOf('`'); i !== -1; i = text.indexOf('`', i)) {
    let end = i;
    while (text[end] === '`') end += 1;
    runs.push({ at: i, length: end - i });
    i = end;
  }
  return runs;
}
