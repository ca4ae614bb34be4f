import { AppError } from '../errors.js';
import { countTokens, textWithin, tokensWithin } from './token-count.js';

/**
 * Answers that fit a token budget (o200k_base) as a whole: what an agent reads is the serialised answer, so the
 * budget counts its JSON text, envelope and all, not only the node texts inside it.
 */

export const fitsIn = (text: string, budget: number) => tokensWithin(text, budget) !== false;

export interface Fitted<A> {
  answer: A;
  /** The answer's JSON text, as counted. */
  text: string;
  /** How many of the leading items it holds. */
  kept: number;
}

/**
 * The answer holding the most leading items whose JSON fits in `budget` tokens: items are taken in order and
 * never skipped, so a lower-ranked item never takes the place of a higher one. `answerOf(n)` builds the answer
 * with the first n items (and says what it left out); `itemText(i)` is what item i adds to it. Undefined when
 * even the answer without any item does not fit.
 */
export function longestFit<A>(count: number, budget: number, answerOf: (n: number) => A, itemText: (i: number) => string): Fitted<A> | undefined {
  const empty = JSON.stringify(answerOf(0));
  const base = tokensWithin(empty, budget);
  if (base === false) return undefined;
  // Estimated from the items alone (a separator each), then checked on the whole answer, whose other parts
  // (what was left out, a cursor) shrink as n grows: from the estimate the search goes up while the next fits,
  // or down by halves when the estimate itself does not.
  let left = budget - base;
  let n = 0;
  for (; n < count; n++) {
    const cost = tokensWithin(itemText(n), left - 1);
    if (cost === false) break;
    left -= cost + 1;
  }
  const at = (k: number): Fitted<A> | undefined => {
    if (k === 0) return { answer: answerOf(0), text: empty, kept: 0 };
    const answer = answerOf(k);
    const text = JSON.stringify(answer);
    return fitsIn(text, budget) ? { answer, text, kept: k } : undefined;
  };
  let best = at(n);
  if (best) {
    for (let next = n + 1; next <= count; next++) {
      const more = at(next);
      if (!more) break;
      best = more;
    }
    return best;
  }
  let [low, high] = [0, n]; // low fits, high does not
  best = at(0)!;
  while (high - low > 1) {
    const mid = (low + high) >> 1;
    const fitted = at(mid);
    if (fitted) [low, best] = [mid, fitted];
    else high = mid;
  }
  return best;
}

/** The refusal of a budget that not even the answer without any item fits in (a 400 on the field that gave it). */
export const budgetTooSmall = (maxTokens: number, where: 'query' | 'body') =>
  new AppError('invalid_request', `maxTokens ${maxTokens} is too small: the answer without any item does not fit in it`, {
    errors: [{ path: '/maxTokens', message: 'is too small for the answer without any item', in: where }],
  });

/** The answer with every item when there is no budget; else longestFit's, refused when not even the empty one fits. */
export function answerWithin<A>(count: number, maxTokens: number | undefined, answerOf: (n: number) => A, itemText: (i: number) => string): A {
  if (maxTokens === undefined) return answerOf(count);
  const fitted = longestFit(count, maxTokens, answerOf, itemText);
  if (!fitted) throw budgetTooSmall(maxTokens, 'query');
  return fitted.answer;
}

/** Appended to a text cut so that its answer fits. */
export const cutMark = ' … [cut to fit maxTokens]';

/**
 * An answer of one entity (a node, an annotation) that fits in `budget` tokens: its longest strings are cut,
 * longest first, each marked with cutMark. Undefined when it cannot be made to fit. `cuttable` keeps the strings
 * it refuses (ids, a cursor) whole.
 */
export function shortenToFit<A extends object>(answer: A, budget: number, cuttable: (path: Path) => boolean = () => true): { answer: A; text: string } | undefined {
  let value = answer;
  for (let round = 0; round < 8; round++) {
    const text = JSON.stringify(value);
    if (fitsIn(text, budget)) return { answer: value, text };
    const longest = longestString(value, [], cuttable);
    if (!longest) return undefined;
    const excess = countTokens(text) - budget;
    const keep = countTokens(longest.value) - excess - countTokens(cutMark) - 4;
    value = structuredClone(value);
    setAt(value, longest.path, keep > 0 ? textWithin(longest.value, keep) + cutMark : '');
  }
  return undefined;
}

/**
 * The answer with each string that `cuttable` allows cut to at most `tokens` tokens (cutMark included): a share of a
 * small budget for each such text, so that what is cut after it still has room.
 */
export function capStrings<A extends object>(answer: A, tokens: number, cuttable: (path: Path) => boolean): A {
  const room = Math.max(0, tokens - countTokens(cutMark));
  const cap = (value: unknown, path: Path): unknown => {
    if (typeof value === 'string') return cuttable(path) && tokensWithin(value, tokens) === false ? textWithin(value, room) + cutMark : value;
    if (Array.isArray(value)) return value.map((v, i) => cap(v, [...path, i]));
    if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cap(v, [...path, k])]));
    return value;
  };
  return cap(answer, []) as A;
}

/** Where a string is in an answer: its keys and indexes from the top. */
export type Path = (string | number)[];

function longestString(value: unknown, path: Path, cuttable: (path: Path) => boolean): { value: string; path: Path } | undefined {
  if (typeof value === 'string') return value.length > 0 && cuttable(path) ? { value, path } : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  let best: { value: string; path: Path } | undefined;
  for (const [key, child] of Object.entries(value)) {
    const found = longestString(child, [...path, Array.isArray(value) ? Number(key) : key], cuttable);
    if (found && (!best || found.value.length > best.value.length)) best = found;
  }
  return best;
}

function setAt(value: object, path: Path, text: string): void {
  let at: any = value;
  for (const key of path.slice(0, -1)) at = at[key];
  at[path[path.length - 1]] = text;
}
