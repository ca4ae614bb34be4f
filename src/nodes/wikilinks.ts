import { slugPattern } from '../http/slug.js';

/**
 * Wikilinks in a context node's markdown content: `[[slug]]`, `[[slug|label]]` and `[[slug#heading]]` (also
 * `[[slug#heading|label]]`; the heading is dropped, the link goes to the node).
 *
 * Rules (documented in the API description of the content field):
 * - The target (before any `#`) is trimmed, put in Unicode NFC and lowercased; it must then be a slug (lowercase
 *   letters and digits of any script, words joined by single `-`: `[[日本語のノート]]`, `[[Brand-Voice]]`).
 *   Anything else between double brackets (`[[Brand Voice]]`, `[[]]`) is plain text, not a link.
 * - Wikilinks inside fenced code blocks (``` or ~~~, CommonMark rules: up to three spaces of indentation,
 *   closed by a fence of the same character at least as long; an unclosed fence runs to the end) and
 *   inside inline code spans (a run of n backticks closed by the next run of exactly n backticks, within
 *   one paragraph) are not links.
 * - Indented (four-space) code blocks are not recognised: only fences delimit code blocks.
 */

/** How many distinct slugs one content may link to (each is a relationship written with the node). */
export const maxWikilinkTargets = 1_000;

const wikilinkPattern = /\[\[([^\[\]|\n]+?)(?:\|[^\[\]\n]*)?\]\]/g;
const fenceOpen = /^ {0,3}(`{3,}|~{3,})(.*)$/;

/** The distinct slugs the content links to, in order of first appearance. */
export function parseWikilinks(content: string | null | undefined): string[] {
  if (!content) return [];
  const slugs: string[] = [];
  const seen = new Set<string>();
  for (const paragraph of proseParagraphs(content)) {
    for (const text of outsideCodeSpans(paragraph)) {
      for (const match of text.matchAll(wikilinkPattern)) {
        const slug = match[1].split('#')[0].trim().normalize('NFC').toLowerCase();
        if (slugPattern.test(slug) && !seen.has(slug)) {
          seen.add(slug);
          slugs.push(slug);
        }
      }
    }
  }
  return slugs;
}

/** The content outside fenced code blocks, split into paragraphs (runs of non-blank lines). */
function proseParagraphs(content: string): string[] {
  const paragraphs: string[] = [];
  let current: string[] = [];
  const flush = () => {
    if (current.length) paragraphs.push(current.join('\n'));
    current = [];
  };
  let fence: { char: string; length: number } | null = null;
  for (const line of content.split(/\r\n|\r|\n/)) {
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
    else current.push(line);
  }
  flush();
  return paragraphs;
}

/**
 * The pieces of a paragraph outside inline code spans: a run of n backticks opens a span that the next run of
 * exactly n backticks closes; an unmatched run is literal text, and a backslash before a run escapes its first
 * backtick. Linear in the paragraph: the runs are listed once, and for each length a cursor only moves forward,
 * so looking for a closing run never rescans the text (many unmatched runs would otherwise be quadratic).
 */
function outsideCodeSpans(paragraph: string): string[] {
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
  const pieces: string[] = [];
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
    pieces.push(paragraph.slice(start, at));
    start = runs[j].at + runs[j].length;
  }
  pieces.push(paragraph.slice(start));
  return pieces;
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
