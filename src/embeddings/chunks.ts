/**
 * The passages a node is embedded as. A short note is one passage; a long one is cut along its headings, then
 * between paragraphs, into passages of at most `maxChars` characters (the embedded model reads 512 tokens at most,
 * and a passage about one thing matches a question about that thing better than a whole note does). Every passage
 * starts with the note's title and its heading, so that a passage read alone still says what it is about; the
 * first also carries the aliases and the description. A query scores a node by its best passage, whose heading is
 * the reason's section.
 */

export interface NodeText {
  title: string;
  aliases?: string[] | null;
  description?: string | null;
  content?: string | null;
}

export interface Chunk {
  /** The heading the passage is under (the nearest one above it), or null before the first heading. */
  section: string | null;
  /** What is embedded. */
  text: string;
}

/** Characters of one passage: about 300 tokens of English, well under the model's 512. */
export const maxChars = 1_200;
/** A note longer than this many passages is embedded by its first ones: the cost of one note stays bounded. */
export const maxChunks = 24;

const headingLine = /^(#{1,6})\s+(.+?)\s*#*\s*$/;

interface Section {
  heading: string | null;
  paragraphs: string[];
}

/** The content's sections: the text under each heading (fenced code kept whole), split into paragraphs. */
function sectionsOf(content: string): Section[] {
  const sections: Section[] = [{ heading: null, paragraphs: [] }];
  let paragraph: string[] = [];
  let fenced = false;
  const flush = () => {
    const text = paragraph.join('\n').trim();
    if (text) sections[sections.length - 1].paragraphs.push(text);
    paragraph = [];
  };
  for (const line of content.split(/\r?\n/)) {
    if (/^\s*(`{3}|~{3})/.test(line)) fenced = !fenced;
    const heading = fenced ? null : headingLine.exec(line);
    if (heading) {
      flush();
      sections.push({ heading: heading[2], paragraphs: [] });
    } else if (!fenced && line.trim() === '') flush();
    else paragraph.push(line);
  }
  flush();
  return sections.filter((s) => s.paragraphs.length > 0 || s.heading !== null);
}

/** Pieces of at most `limit` characters: a paragraph too long by itself is cut between sentences, else anywhere. */
function piecesOf(paragraph: string, limit: number): string[] {
  if (paragraph.length <= limit) return [paragraph];
  const pieces: string[] = [];
  let rest = paragraph;
  while (rest.length > limit) {
    const window = rest.slice(0, limit);
    const cut = Math.max(window.lastIndexOf('. '), window.lastIndexOf('\n'), window.lastIndexOf('。'));
    const at = cut > limit / 2 ? cut + 1 : limit;
    pieces.push(rest.slice(0, at).trim());
    rest = rest.slice(at).trim();
  }
  if (rest) pieces.push(rest);
  return pieces;
}

/** The node's passages, in the order of its text, at least one (its title) and at most `maxChunks`. */
export function chunksOf(node: NodeText): Chunk[] {
  const aliases = (node.aliases ?? []).filter(Boolean);
  const lead = [node.title, aliases.length ? `Also called: ${aliases.join(', ')}` : '', node.description ?? ''].filter(Boolean).join('\n');
  const chunks: Chunk[] = [];
  for (const section of sectionsOf(node.content ?? '')) {
    const head = [node.title, section.heading].filter(Boolean).join(' › ');
    let body = '';
    const emit = () => {
      if (!body) return;
      const first = chunks.length === 0;
      chunks.push({ section: section.heading, text: `${first ? lead : head}\n\n${body}` });
      body = '';
    };
    for (const paragraph of section.paragraphs) {
      for (const piece of piecesOf(paragraph, maxChars)) {
        if (body && body.length + piece.length + 2 > maxChars) emit();
        body = body ? `${body}\n\n${piece}` : piece;
      }
    }
    emit();
    if (chunks.length >= maxChunks) break;
  }
  if (chunks.length === 0) chunks.push({ section: null, text: lead });
  return chunks.slice(0, maxChunks);
}
