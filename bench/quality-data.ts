/**
 * The question sets of `npm run bench -- --quality` (bench/data/hipporag/, LICENSE-NOTES.md there): HippoRAG's
 * 100-question subsets of MuSiQue and HotpotQA, each with its corpus of passages, and the context nodes made of
 * them. A question's gold passages are given by corpus index (checked against the corpus's titles on load).
 *
 * Each passage is one node: its title (made unique where the corpus repeats one: `Title (2)`), its text with
 * every occurrence of another passage's title made a `[[Title]]` wikilink, so that the service links them.
 *
 * `npx tsx bench/quality-data.ts DIR` makes the files under bench/data/hipporag/ again from HippoRAG's
 * data/{musique,hotpotqa}_train{,_corpus}.json in DIR: the corpora copied as they are, the questions cut to the
 * fields scored.
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { projectRoot } from '../src/infra/project-root.js';
import { firstFreeSlug, slugBase } from '../src/api/slug.js';
import { nameKey, parseWikilinks, wikilinkTarget } from '../src/nodes/wikilinks.js';

export const QUALITY_SETS = ['musique', 'hotpotqa'] as const;
export type QualitySetName = (typeof QUALITY_SETS)[number];
export const DATA_DIR = path.join(projectRoot, 'bench', 'data', 'hipporag');

const FILES: Record<QualitySetName, { label: string; corpus: string; questions: string; source: string }> = {
  musique: { label: 'MuSiQue', corpus: 'musique_train_corpus.json', questions: 'musique_questions.json', source: 'musique_train.json' },
  hotpotqa: { label: 'HotpotQA', corpus: 'hotpotqa_train_corpus.json', questions: 'hotpotqa_questions.json', source: 'hotpotqa_train.json' },
};

export interface Passage {
  title: string;
  text: string;
}

export interface Question {
  id: string;
  question: string;
  answer: string;
  /** The passages that support the answer: their titles and corpus indices. */
  gold: { title: string; corpus: number }[];
}

export interface QualitySet {
  name: QualitySetName;
  label: string;
  corpus: Passage[];
  questions: Question[];
}

/** MuSiQue's corpus is a list of `{title, text}`; HotpotQA's an object of title → sentences (each but the first with its leading space). */
function readCorpus(file: string): Passage[] {
  const raw = JSON.parse(readFileSync(file, 'utf8')) as Passage[] | Record<string, string[]>;
  if (Array.isArray(raw)) return raw.map((p) => ({ title: p.title, text: p.text }));
  return Object.entries(raw).map(([title, sentences]) => ({ title, text: sentences.join('') }));
}

/** One set with its first `limit` questions; every gold passage checked against the corpus. */
export function loadSet(name: QualitySetName, limit = Infinity, dir = DATA_DIR): QualitySet {
  const f = FILES[name];
  const corpus = readCorpus(path.join(dir, f.corpus));
  const questions = (JSON.parse(readFileSync(path.join(dir, f.questions), 'utf8')) as Question[]).slice(0, limit);
  for (const q of questions) {
    for (const g of q.gold) {
      if (corpus[g.corpus]?.title !== g.title) throw new Error(`${f.questions}: question ${q.id}: gold passage ${g.corpus} is '${corpus[g.corpus]?.title}', not '${g.title}'`);
    }
  }
  return { name, label: f.label, corpus, questions };
}

/** One item of the bulk import (src/nodes/schemas.ts ImportNodeSchema). */
export interface PassageItem {
  slug: string;
  title: string;
  description: string;
  content: string;
  nodeType: 'reference';
}

export interface PassageNodes {
  items: PassageItem[];
  /** Corpus index → the slug of its node. */
  slugOf: string[];
  /** Slug → corpus index. */
  corpusOf: Map<string, number>;
  /** Distinct (source slug, target slug) pairs of the wikilinks written, as the service should resolve them. */
  pairsWritten: Set<string>;
  /**
   * The pairs the service should link: those of the wikilinks it reads (outside code spans: MuSiQue quotes with
   * ``…'', which may open one), with the wikilinks a text already had that name a passage.
   */
  linkPairs: Set<string>;
  wikilinks: number;
  /** Titles never made a link: shorter than 4 characters, or not a valid wikilink name. */
  titlesSkipped: number;
}

const MIN_TITLE = 4;
const wordChar = /[\p{L}\p{N}]/u;
const isWord = (ch: string | undefined) => ch !== undefined && wordChar.test(ch);

/**
 * The nodes of a corpus. A title a corpus repeats (or that another repeats ignoring case, which is how wikilinks
 * compare) is made unique as `Title (2)`, `Title (3)`, …; the first keeps it, and a `[[Title]]` names that first.
 * The description is the title (the field is required; the text is already the content). In each text, the
 * titles of the other passages (at least 4 characters, case-sensitive, whole words) are found, the longest
 * first, and each occurrence not overlapping one already taken becomes `[[Title]]`.
 */
export function passageNodes(corpus: Passage[]): PassageNodes {
  const usedKeys = new Set<string>();
  const titles = corpus.map((p) => {
    let title = p.title;
    for (let n = 2; usedKeys.has(nameKey(title)); n++) title = `${p.title} (${n})`;
    usedKeys.add(nameKey(title));
    return title;
  });
  const slugs = new Set<string>();
  const slugOf = titles.map((t, i) => {
    const slug = firstFreeSlug(slugBase(t, `passage-${i}`), slugs);
    slugs.add(slug);
    return slug;
  });
  // What a [[Title]] names: the node whose slug is its key, else the node whose (unique) title has its key (names.ts ranks).
  const slugByKey = new Map(slugOf.map((s) => [s, s]));
  const slugByTitleKey = new Map(titles.map((t, i) => [nameKey(t), slugOf[i]]));
  const linkable = new Map<string, string>(); // original title → the slug [[it]] resolves to
  const skipped = new Set<string>();
  corpus.forEach((p) => {
    if (linkable.has(p.title) || skipped.has(p.title)) return;
    const t = wikilinkTarget(p.title);
    if (p.title.length < MIN_TITLE || !t || t.section !== null || t.name !== p.title.normalize('NFC') || p.title !== p.title.trim()) {
      skipped.add(p.title);
      return;
    }
    linkable.set(p.title, slugByKey.get(nameKey(p.title)) ?? slugByTitleKey.get(nameKey(p.title))!);
  });
  // Titles by their first three characters, longest first.
  const byPrefix = new Map<string, string[]>();
  for (const title of [...linkable.keys()].sort((a, b) => b.length - a.length || (a < b ? -1 : 1))) {
    const k = title.slice(0, 3);
    byPrefix.set(k, [...(byPrefix.get(k) ?? []), title]);
  }
  const pairsWritten = new Set<string>();
  const linkPairs = new Set<string>();
  const linkableByKey = new Map([...linkable].map(([title, slug]) => [nameKey(title), slug]));
  let wikilinks = 0;
  const items = corpus.map((p, i): PassageItem => {
    const text = p.text;
    const found: { start: number; end: number; title: string }[] = [];
    for (let at = 0; at + MIN_TITLE <= text.length; at++) {
      for (const title of byPrefix.get(text.slice(at, at + 3)) ?? []) {
        if (title === p.title || linkable.get(title) === slugOf[i] || !text.startsWith(title, at)) continue;
        const end = at + title.length;
        if ((isWord(title[0]) && isWord(text[at - 1])) || (isWord(title[title.length - 1]) && isWord(text[end]))) continue;
        found.push({ start: at, end, title });
      }
    }
    // Longest titles first (then the earliest); one overlapping a span already taken is left as text.
    found.sort((a, b) => b.title.length - a.title.length || a.start - b.start);
    // Wikilinks the text already has (one HotpotQA passage keeps Wikipedia's) are taken first.
    const taken: typeof found = [...text.matchAll(/\[\[[^\[\]\n]*?\]\]/g)].map((m) => ({ start: m.index, end: m.index + m[0].length, title: '' }));
    const given = taken.length;
    for (const m of found) if (!taken.some((t) => m.start < t.end && t.start < m.end)) taken.push(m);
    const made = taken.slice(given).sort((a, b) => a.start - b.start);
    let content = '';
    let from = 0;
    for (const m of made) {
      content += `${text.slice(from, m.start)}[[${m.title}]]`;
      from = m.end;
      pairsWritten.add(`${slugOf[i]}\n${linkable.get(m.title)}`);
    }
    wikilinks += made.length;
    content += text.slice(from);
    for (const w of parseWikilinks(content)) {
      const target = linkableByKey.get(w.key);
      if (target !== undefined && target !== slugOf[i]) linkPairs.add(`${slugOf[i]}\n${target}`);
    }
    return { slug: slugOf[i], title: titles[i], description: titles[i], content, nodeType: 'reference' };
  });
  return { items, slugOf, corpusOf: new Map(slugOf.map((s, i) => [s, i])), pairsWritten, linkPairs, wikilinks, titlesSkipped: skipped.size };
}

/** HippoRAG's question files → ours: id, question, answer and the gold passages by corpus index. */
function prepare(sourceDir: string, outDir = DATA_DIR): void {
  mkdirSync(outDir, { recursive: true });
  for (const name of QUALITY_SETS) {
    const f = FILES[name];
    copyFileSync(path.join(sourceDir, f.corpus), path.join(outDir, f.corpus));
    const corpus = readCorpus(path.join(outDir, f.corpus));
    const raw = JSON.parse(readFileSync(path.join(sourceDir, f.source), 'utf8')) as Record<string, unknown>[];
    const questions: Question[] = raw.slice(0, 100).map((q) => {
      let gold: { title: string; corpus: number }[];
      if (name === 'musique') {
        // The supporting paragraphs, found in the corpus by title and text (titles repeat there).
        const paragraphs = q.paragraphs as { title: string; paragraph_text: string; is_supporting: boolean }[];
        gold = paragraphs.filter((p) => p.is_supporting).map((p) => ({ title: p.title, corpus: corpus.findIndex((c) => c.title === p.title && c.text === p.paragraph_text) }));
      } else {
        // The titles of the supporting facts (several facts may come from one passage); titles are unique in the corpus.
        const titles = [...new Set((q.supporting_facts as [string, number][]).map(([t]) => t))];
        gold = titles.map((title) => ({ title, corpus: corpus.findIndex((c) => c.title === title) }));
      }
      const id = String(q.id ?? q._id);
      if (gold.some((g) => g.corpus < 0)) throw new Error(`${f.source}: question ${id}: a gold passage is not in the corpus`);
      return { id, question: String(q.question), answer: String(q.answer), gold };
    });
    writeFileSync(path.join(outDir, f.questions), `[\n${questions.map((q) => JSON.stringify(q)).join(',\n')}\n]\n`);
    console.log(`${f.label}: ${questions.length} questions, ${corpus.length} passages -> ${path.relative(projectRoot, outDir)}`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (!process.argv[2]) {
    console.error('usage: npx tsx bench/quality-data.ts DIR   (DIR holds HippoRAG\'s data/{musique,hotpotqa}_train{,_corpus}.json)');
    process.exit(2);
  }
  prepare(path.resolve(process.argv[2]));
}
