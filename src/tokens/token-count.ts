import { countTokens as countO200k, decode, encode, isWithinTokenLimit } from 'gpt-tokenizer/encoding/o200k_base';

/**
 * Tokens of a text in the o200k_base encoding (GPT-4o and later; close enough for other models' budgets).
 * gpt-tokenizer ships the ranks in the package, so counting needs no network, and it counts far faster than
 * js-tiktoken with the same result (test/retrieval/token-budget.test.ts checks against js-tiktoken). Counted
 * once when a node is written and stored on it, never on the read path. Text that spells a special token
 * (`<|endoftext|>`) is counted as the text it is: it is a node's content, not a prompt's control sequence.
 */
const asText = { disallowedSpecial: new Set<string>() };
export function countTokens(text: string | null | undefined): number {
  if (!text) return 0;
  let count = 0;
  for (const piece of pieces(text)) count += countO200k(piece, asText);
  return count;
}

/** The tokens of a text when they are at most `limit`, else false: counting stops once the limit is passed. */
export function tokensWithin(text: string, limit: number): number | false {
  let count = 0;
  for (const piece of pieces(text)) {
    const within = isWithinTokenLimit(piece, limit - count, asText);
    if (within === false) return false;
    count += within;
  }
  return count;
}

/** The longest start of a text that holds at most `limit` tokens (cut where a token ends). */
export function textWithin(text: string, limit: number): string {
  let kept = '';
  let left = limit;
  for (const piece of pieces(text)) {
    const tokens = encode(piece, asText);
    if (tokens.length > left) return kept + decode(tokens.slice(0, left));
    kept += piece;
    left -= tokens.length;
  }
  return kept;
}

/** Longest piece encoded at once, and the cut of a run without spaces: a BPE merge loop is quadratic in a word's length. */
const pieceLength = 2_000;
const runCut = 256;

/**
 * The text in pieces of about pieceLength characters, cut before a space that follows a non-space (where the
 * encoding's pre-tokenizer cuts too, so the count is the same as the whole text's); a run with no such place
 * (a 100 kB word) is cut every runCut characters, which may count a few tokens more than one pass would.
 */
function* pieces(text: string): Generator<string> {
  let start = 0;
  while (text.length - start > pieceLength) {
    // The cut is looked for inside the window alone: searching back from the window's end to the text's start
    // makes a long text without spaces quadratic.
    const window = text.slice(start, start + pieceLength + 1);
    let at = window.lastIndexOf(' ');
    while (at > 0 && /\s/.test(window[at - 1])) at = window.lastIndexOf(' ', at - 1);
    const cut = start + (at > 0 ? at : runCut);
    yield text.slice(start, cut);
    start = cut;
  }
  yield text.slice(start);
}

/** The token counts a context node stores, one per text field a retrieval may carry. */
export interface TokenCounts {
  tokenCount: number;
  descriptionTokenCount: number;
  agentSummaryTokenCount: number;
}

export function tokenCountsOf(node: { content?: string | null; description?: string | null; agentSummary?: string | null }): TokenCounts {
  return {
    tokenCount: countTokens(node.content),
    descriptionTokenCount: countTokens(node.description),
    agentSummaryTokenCount: countTokens(node.agentSummary),
  };
}
