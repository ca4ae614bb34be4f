/**
 * Takes style attributes and style-bearing elements out of HTML before any parser sees it.
 *
 * Chromium applies the page's CSP to every document the page makes, the inert ones a sanitiser parses into
 * included (DOMParser, <template>, createHTMLDocument): a style attribute is refused and reported the moment it
 * is parsed, before DOMPurify can drop it. So the markup marked makes of a note is cut here first, by a reading
 * of its tags that follows the HTML tokenizer's rules for tags, attributes and comments. Where that reading and a
 * browser's could part (the contents of <textarea>, <style>, <script> and their kind, CDATA sections), the tag
 * that opens them is escaped, so the browser reads on as plain text and both readings stay the same.
 */

/** Elements whose contents the tokenizer reads as text, not tags, and the CDATA section's opening. */
const rawTextTags = new Set(['script', 'style', 'textarea', 'title', 'xmp', 'iframe', 'noembed', 'noframes', 'noscript', 'plaintext']);
const space = /[\t\n\f\r ]/;
const letter = /[A-Za-z]/;

/** Where the tag opened at `at` ("<" or "</" then a letter) ends, with the spans of its style attributes. */
function readTag(html: string, at: number): { end: number; name: string; cuts: [number, number][] } {
  let i = html[at + 1] === '/' ? at + 2 : at + 1;
  const nameStart = i;
  while (i < html.length && !space.test(html[i]) && html[i] !== '/' && html[i] !== '>') i++;
  const name = html.slice(nameStart, i).toLowerCase();
  const cuts: [number, number][] = [];
  while (i < html.length) {
    const c = html[i];
    if (c === '>') return { end: i + 1, name, cuts };
    if (space.test(c) || c === '/') { i++; continue; }
    // An attribute: its name (the first character is taken whatever it is, "=" included), then maybe a value.
    const start = i;
    i++;
    while (i < html.length && !space.test(html[i]) && !'/>='.includes(html[i])) i++;
    const attribute = html.slice(start, i).toLowerCase();
    let j = i;
    while (j < html.length && space.test(html[j])) j++;
    if (html[j] === '=') {
      j++;
      while (j < html.length && space.test(html[j])) j++;
      const quote = html[j];
      if (quote === '"' || quote === "'") {
        const close = html.indexOf(quote, j + 1);
        i = close === -1 ? html.length : close + 1;
      } else {
        i = j;
        while (i < html.length && !space.test(html[i]) && html[i] !== '>') i++;
      }
    }
    if (attribute === 'style') cuts.push([start, i]);
  }
  // A tag cut off by the end of the text is dropped by the browser.
  return { end: html.length, name, cuts };
}

/** `html` without style attributes, and with the openings of raw-text elements and CDATA sections escaped. */
export function withoutInlineStyles(html: string): string {
  let out = '';
  let copied = 0;
  let i = html.indexOf('<');
  while (i !== -1 && i < html.length) {
    const next = html[i + 1] ?? '';
    const isEnd = next === '/';
    if (letter.test(next) || (isEnd && letter.test(html[i + 2] ?? ''))) {
      const tag = readTag(html, i);
      if (!isEnd && rawTextTags.has(tag.name)) {
        out += `${html.slice(copied, i)}&lt;`;
        copied = i + 1;
        i = html.indexOf('<', i + 1);
        continue;
      }
      for (const [from, to] of tag.cuts) {
        out += html.slice(copied, from);
        copied = to;
      }
      i = html.indexOf('<', tag.end);
    } else if (html.startsWith('<![CDATA[', i)) {
      out += `${html.slice(copied, i)}&lt;`;
      copied = i + 1;
      i = html.indexOf('<', i + 1);
    } else if (html.startsWith('<!--', i)) {
      // A comment ends at "-->" or "--!>", or at once as "<!-->" or "<!--->".
      const rest = html.slice(i + 4);
      const end = rest.startsWith('>') ? 1 : rest.startsWith('->') ? 2 : (() => {
        const m = /--!?>/.exec(rest);
        return m ? m.index + m[0].length : rest.length;
      })();
      i = html.indexOf('<', i + 4 + end);
    } else if (next === '!' || next === '?' || isEnd) {
      // A doctype or a bogus comment: up to the first ">".
      const close = html.indexOf('>', i + 1);
      i = close === -1 ? -1 : html.indexOf('<', close + 1);
    } else {
      i = html.indexOf('<', i + 1);
    }
  }
  return out + html.slice(copied);
}
