import { isStopWord } from './stop-words.js';

/** `any`: a sentence is a question, any word may match; `all`: every word must match. */
export type WordsMatch = 'any' | 'all';

// Lucene adds up the scores of the clauses a node matches (its term scores are BM25), so these boosts order the
// answers: the words adjacent in the order given first, then nodes with every word, then the rest by BM25. They
// are weights, not tiers: high enough that a node with the words in its title, description and content alike
// stays behind one that has them once, adjacent, since the score of each field adds up too.
const phraseBoost = 16;
const allWordsBoost = 4;
// A quoted phrase weighs as the words together do: enough to put a node with the phrase before one with its words
// apart, not so much that it outweighs the rest of a question (16 ranked worse on HotpotQA: bench --quality).
const quotedBoost = 4;
// A prefix query scores a constant per field matched, however common the word: kept small so that it finds
// `launches` for `launch` without outweighing the BM25 of a real word.
const prefixBoost = 0.1;
// Lucene refuses a query of more than 1,024 clauses, and each distinct word makes up to four for each of the five
// indexed fields: the words and quoted phrases past this many (stop words aside) are left out, but for the whole
// text's phrase (one clause a field).
const maxWords = 32;

interface Part {
  /** Lowercased; a quoted phrase's words separated by one space. */
  text: string;
  /** Quoted: matched exactly, as a phrase (or a word, without its prefix). */
  exact: boolean;
  required: boolean;
  stop: boolean;
}

const searchable = /[\p{L}\p{N}]/u;
const plainWord = /^[\p{L}\p{N}]+$/u;

/**
 * The Lucene query (for the full-text index context_node_text) for a user's search text; undefined when it holds
 * nothing searchable (no letter or digit). With `any`, any word may match, ranked by BM25, with nodes matching
 * the text as a phrase (stop words at either end aside) first and then nodes matching every word; stop words are
 * dropped unless the text is nothing else. A "quoted phrase" is searched as its words and, boosted, as a phrase,
 * not required (as Lucene's own syntax reads it): a question quotes a title that the note it names may give in
 * other words, and requiring it lost that note. `+word` and `+"a phrase"` are required in either mode; with `all`,
 * every word and phrase is.
 * Every word is quoted with `"` and `\` escaped and lowercased, so operators, field names and wildcards are
 * plain text and any input is a valid query; a word of letters and digits also matches as a prefix (`launch`
 * finds `launches`), unless it was quoted.
 */
export function wordsQuery(q: string, match: WordsMatch = 'any'): string | undefined {
  const parts = partsOf(q);
  const onlyStopWords = parts.every((part) => part.stop);
  const required: Part[] = [];
  const phrases: string[] = [];
  const words: Part[] = [];
  const search = (list: Part[], part: Part) => {
    // A word given twice is searched once, the strict way when one of them is: `launch +launch` requires it.
    if (list.some((other) => other.text === part.text) || required.length + phrases.length + words.length >= maxWords) return;
    list.push(part);
  };
  for (const part of parts) {
    if (part.required || match === 'all') {
      if (part.stop && !part.required && !onlyStopWords) continue;
      search(required, part);
    } else if (part.exact) {
      const inPhrase = part.text.split(' ');
      if (inPhrase.length > 1 && !phrases.includes(part.text) && required.length + phrases.length + words.length < maxWords) phrases.push(part.text);
      for (const text of inPhrase) {
        if (!isStopWord(text) || part.stop) search(words, { text, exact: inPhrase.length === 1, required: false, stop: part.stop });
      }
    } else if (!part.stop || onlyStopWords) {
      search(words, part);
    }
  }
  const optional = words.filter((word) => !required.some((part) => part.text === word.text));
  if (!required.length && !optional.length) return undefined;

  const clauses = required.map((part) => `+${part.exact ? quoted(part.text) : wordClause(part.text)}`);
  const phrase = phraseOf(parts, onlyStopWords);
  if (phrase.length > 1) clauses.push(`${quoted(phrase.map((part) => part.text).join(' '))}^${phraseBoost}`);
  clauses.push(...phrases.map((text) => `${quoted(text)}^${quotedBoost}`));
  if (optional.length > 1) clauses.push(`(${optional.map((word) => `+${clauseOf(word)}`).join(' ')})^${allWordsBoost}`);
  clauses.push(...optional.map(clauseOf));
  // Clauses are joined by the default operator (OR): an explicit OR after a `+clause` would make it optional.
  return clauses.join(' ');
}

const clauseOf = (word: Part) => (word.exact ? quoted(word.text) : wordClause(word.text));

/** The words and "quoted phrases" of a search text, in order, each with its leading `+` and edge punctuation taken off. */
function partsOf(q: string): Part[] {
  const parts: Part[] = [];
  for (const [, plus, phrase, word] of q.normalize('NFC').matchAll(/(\+*)(?:"([^"]*)"|(\S+))/gu)) {
    if (phrase !== undefined) {
      if (!searchable.test(phrase)) continue;
      const words = phrase.toLowerCase().split(/\s+/).filter(Boolean);
      parts.push({ text: words.join(' '), exact: true, required: plus !== '', stop: words.every(isStopWord) });
      continue;
    }
    // Punctuation around a word is the sentence's (`Story?`, `(launch)`), not the word's; `C++` keeps its pluses.
    const text = (word ?? '').toLowerCase().replace(/^\p{P}+|\p{P}+$/gu, '');
    if (!searchable.test(text)) continue;
    parts.push({ text, exact: false, required: plus !== '', stop: isStopWord(text) });
  }
  return parts;
}

/**
 * The parts whose adjacency ranks first: all of them but the stop words at either end, which would otherwise
 * decide between nodes (`the launch` is not a better match for `launch` than `a launch`). Those in between stay,
 * since the index keeps them in place: `lord of the rings`.
 */
function phraseOf(parts: Part[], onlyStopWords: boolean): Part[] {
  if (onlyStopWords) return parts;
  const kept = parts.flatMap((part, i) => (part.stop && !part.required ? [] : [i]));
  return kept.length ? parts.slice(kept[0], kept[kept.length - 1]! + 1) : [];
}

// A prefix query of a very long "word" (thousands of characters, which no note holds) makes Lucene fail the whole
// search: past this length a word is matched as it is.
const maxPrefixChars = 100;

function wordClause(word: string): string {
  return plainWord.test(word) && word.length <= maxPrefixChars ? `(${quoted(word)} OR ${word}*^${prefixBoost})` : quoted(word);
}

function quoted(text: string): string {
  return `"${text.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}
