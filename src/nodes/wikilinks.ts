/**
 * Wikilinks in a context node's markdown content: `[[slug]]` and `[[slug|label]]`.
 *
 * Rules (documented in the API description of the content field):
 * - The target is trimmed and lowercased; it must then be a slug (`a-z0-9` words joined by single `-`).
 *   Anything else between double brackets (`[[Brand Voice]]`, `[[]]`) is plain text, not a link.
 * - Wikilinks inside fenced code blocks (``` or ~~~, CommonMark rules: up to three spaces of indentation,
 *   closed by a fence of the same character at least as long; an unclosed fence runs to the end) and
 *   inside inline code spans (a run of n backticks closed by the next run of exactly n backticks, within
 *   one paragraph) are not links.
 * - Indented (four-space) code blocks are not recognised: only fences delimit code blocks.
 */

const slugPattern = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
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
        const slug = match[1].trim().toLowerCase();
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

/** The pieces of a paragraph outside inline code spans. An unmatched backtick run is literal text. */
function outsideCodeSpans(paragraph: string): string[] {
  const pieces: string[] = [];
  let start = 0;
  let i = 0;
  while (i < paragraph.length) {
    if (paragraph[i] === '\\' && paragraph[i + 1] === '`') {
      i += 2;
      continue;
    }
    if (paragraph[i] !== '`') {
      i += 1;
      continue;
    }
    let runEnd = i;
    while (paragraph[runEnd] === '`') runEnd += 1;
    const length = runEnd - i;
    const close = findClosingRun(paragraph, runEnd, length);
    if (close === -1) {
      i = runEnd;
      continue;
    }
    pieces.push(paragraph.slice(start, i));
    i = close + length;
    start = i;
  }
  pieces.push(paragraph.slice(start));
  return pieces;
}

/** Index of the next run of exactly `length` backticks at or after `from`, or -1. */
function findClosingRun(text: string, from: number, length: number): number {
  let i = from;
  while (i < text.length) {
    if (text[i] !== '`') {
      i += 1;
      continue;
    }
    let end = i;
    while (text[end] === '`') end += 1;
    if (end - i === length) return i;
    i = end;
  }
  return -1;
}
