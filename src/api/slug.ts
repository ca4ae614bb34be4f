/**
 * Slugs: the key of a playbook or a context node within its workspace, by which wikilinks and agents name it.
 * Lowercase letters and digits of any script, with the combining marks that write those scripts, in Unicode
 * NFC, as words joined by single '-'.
 */

const letter = '\\p{Ll}\\p{Lm}\\p{Lo}\\p{Nd}\\p{Nl}';
const mark = '\\p{Mn}\\p{Mc}';
const word = `[${letter}][${letter}${mark}]*`;

/**
 * The shape of a slug. Uppercase and titlecase letters are outside it; what no regular expression can tell (NFC,
 * and the few letter numbers that have a lowercase form) is checked apart, by slugProblem.
 */
export const slugPattern = new RegExp(`^${word}(?:-${word})*$`, 'u');

export const maxSlugLength = 200;
/** Longest generated slug before a `-N` suffix, leaving room for one within maxSlugLength. */
export const maxSlugBase = 190;

/** Why a slug that matches the pattern is still not one, or undefined. */
export function slugProblem(slug: string): string | undefined {
  if (slug.toLowerCase() !== slug) return `must be lowercase: '${slug.toLowerCase()}'`;
  if (slug.normalize('NFC') !== slug) return `must be in Unicode normalization form C (NFC): '${slug.normalize('NFC')}'`;
  return undefined;
}

/** Whether text is a slug: the pattern, lowercase and NFC (the JSON Schema format `slug`). */
export const isSlug = (text: string): boolean => slugPattern.test(text) && slugProblem(text) === undefined;

/** What a text that is not a slug is told. */
export function notASlug(text: unknown): string {
  const problem = typeof text === 'string' && slugPattern.test(text) ? slugProblem(text) : undefined;
  return problem ?? "must be a slug: lowercase letters and digits of any script, words joined by single '-'";
}

/**
 * Latin letters with a stroke or a missing dot, which Unicode does not decompose: folded like the accents it does
 * decompose ('Łódź' reads 'lodz'). Slugs generated before the letters below were folded used only these.
 */
const legacyFolds: Record<string, string> = { ø: 'o', đ: 'd', ħ: 'h', ł: 'l', ŧ: 't', ı: 'i', ƀ: 'b', ƶ: 'z' };

/**
 * Every Latin letter Unicode does not decompose, as people write it in ASCII: the ligatures and the letters of their
 * own spelled out ('Fußnoten' reads 'fussnoten', 'lagergrænser' 'lagergraenser', 'þing' 'thing').
 */
const latinFolds: Record<string, string> = {
  ...legacyFolds,
  ß: 'ss', æ: 'ae', œ: 'oe', þ: 'th', ð: 'd', ŋ: 'ng', ĸ: 'k', ǥ: 'g', ɨ: 'i', ʉ: 'u', ȼ: 'c', ɇ: 'e', ɉ: 'j', ɍ: 'r', ƴ: 'y', ȥ: 'z', ƒ: 'f',
};

const asciiWord = /[a-z0-9]/;
const latin = /\p{Script=Latin}/u;
const kept = new RegExp(`[${letter}]`, 'u');
const combining = /\p{M}/u;

/**
 * The slug of a title or a file name: lowercased, Latin letters folded to ASCII (accents dropped, ß, æ, þ … spelled
 * out), letters and digits of other scripts kept with their combining marks, every run of other characters one '-',
 * leading and trailing '-' trimmed. 'Quarterly Launch Plan!' → 'quarterly-launch-plan', '日本語のノート' →
 * '日本語のノート', 'Crème Brûlée' → 'creme-brulee', 'Straße' → 'strasse'. Returns '' when nothing is left; callers
 * decide what to do then.
 */
export function slugify(title: string): string {
  return slugifyWith(title, latinFolds);
}

function slugifyWith(title: string, folds: Record<string, string>): string {
  // Compatibility decomposition: ligatures and full-width forms become plain letters, and every accent a mark of
  // its own, dropped after a Latin letter and kept after a letter of another script (NFC puts it back on).
  const text = title.normalize('NFKD').toLowerCase();
  let out = '';
  let marksKept = false;
  let separated = false;
  const add = (s: string) => {
    if (separated && out) out += '-';
    separated = false;
    out += s;
  };
  for (const ch of text) {
    if (combining.test(ch)) {
      if (marksKept) out += ch;
      continue;
    }
    marksKept = false;
    if (asciiWord.test(ch)) add(ch);
    else if (latin.test(ch)) {
      if (folds[ch]) add(folds[ch]);
      else separated = true;
    } else if (kept.test(ch)) {
      add(ch);
      marksKept = true;
    } else separated = true;
  }
  return out.normalize('NFC');
}

/** The first `max` characters (code points, as the schema counts them) of a slug, without a trailing '-'. */
function cutSlug(slug: string, max: number): string {
  const chars = Array.from(slug);
  if (chars.length <= max) return slug;
  const cut = chars.slice(0, max);
  // A letter cut off from its marks would read as another letter: the cut goes before the whole cluster.
  while (cut.length && combining.test(chars[cut.length])) cut.pop();
  return cut.join('').replace(/-+$/, '');
}

/** The slug generated from a title (or a file's path): slugify, capped to leave room for a `-N`, else `fallback`. */
export function slugBase(title: string, fallback: string): string {
  return cutSlug(slugify(title), maxSlugBase) || fallback;
}

/**
 * slugBase as it was before ligatures and letters of their own were folded (they became '-'), equal to it for every
 * other title: a folder import finds by it the nodes it made from files then, before nodes kept their file's path.
 */
export function legacySlugBase(title: string, fallback: string): string {
  return cutSlug(slugifyWith(title, legacyFolds), maxSlugBase) || fallback;
}

/** The first of base, base-2, base-3, … that `taken` does not hold. */
export function firstFreeSlug(base: string, taken: { has(slug: string): boolean }): string {
  if (!taken.has(base)) return base;
  for (let n = 2; ; n += 1) {
    const candidate = `${base}-${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}

/**
 * The slug `choose` picks from `taken` (the slugs already taken that equal `base` or extend it, under a claim of
 * `base`), with a pick other than `base` claimed too and checked again: a write of exactly that slug claims only
 * it, so it may have taken it meanwhile. `claim` locks a slug until the transaction ends and returns the slugs
 * taken that equal or extend it.
 */
export async function settleSlug(base: string, taken: Set<string>, choose: (taken: Set<string>) => string, claim: (slug: string) => Promise<Set<string>>): Promise<string> {
  for (;;) {
    const slug = choose(taken);
    if (slug === base || !(await claim(slug)).has(slug)) return slug;
    taken.add(slug);
  }
}

/** What a write asks of its slug: the one it was given, else one made from its title (or `fallback`). */
export interface SlugWish {
  explicit?: string;
  title: string;
  fallback: string;
}

/**
 * The slug a write gets, claimed until its transaction ends. An explicit slug must be free, else `taken(slug)` is
 * thrown; an automatic one is the slugified title with -2, -3, … appended while taken, settled one writer after
 * another (settleSlug). `claim` locks a slug and returns the slugs other things hold that equal or extend it.
 */
export async function allocateSlug(wish: SlugWish, claim: (slug: string) => Promise<Set<string>>, taken: (slug: string) => Error): Promise<string> {
  if (wish.explicit !== undefined) {
    if ((await claim(wish.explicit)).has(wish.explicit)) throw taken(wish.explicit);
    return wish.explicit;
  }
  const base = slugBase(wish.title, wish.fallback);
  return settleSlug(base, await claim(base), (free) => firstFreeSlug(base, free), claim);
}
