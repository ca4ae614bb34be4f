import { type TObject, Type } from '@sinclair/typebox';
import { AppError } from '../errors.js';
import type { ToolAnswer } from '../api/operation.js';
import type { Pagination } from '../api/common-schemas.js';
import { CursorParam, decodeCursor, encodeCursor } from '../api/cursor.js';
import { budgetTooSmall, longestFit, shortenToFit } from './token-fit.js';

/**
 * The token budget of a tool's answer. An agent reads a tool result whole: its text block and its structured
 * content, which carry the same JSON, so each may hold half of the budget.
 */
export const answerBudget = (maxTokens: number) => Math.floor(maxTokens / 2);

export const MaxTokensInput = Type.Integer({
  minimum: 100,
  maximum: 1_000_000,
  description:
    'Token budget (o200k_base) of the whole tool result (its text and its structured content together); default: the server’s MCP budget. ' +
    'What does not fit is left out in rank order and said compactly (a count, the first ids, a cursor to continue)',
});

/**
 * A REST-shaped answer (whose `maxTokens` bounds its JSON) made with one copy's share of the tool's budget; its
 * refusal of a budget too small names the budget the call gave.
 */
export async function withShare<T>(maxTokens: number, work: (share: number) => Promise<T>): Promise<T> {
  try {
    return await work(answerBudget(maxTokens));
  } catch (err) {
    if (err instanceof AppError && err.errors?.[0]?.path === '/maxTokens') throw budgetTooSmall(maxTokens, 'body');
    throw err;
  }
}

/** A tool's answer whose text is its structured content's JSON. */
export const answer = (body: unknown): ToolAnswer => ({ structured: body as Record<string, unknown>, text: JSON.stringify(body) });

/** An entity's answer within the budget: its longest texts are cut (and marked) when it does not fit whole. */
export function entityWithin<A extends object>(answer: A, maxTokens: number): ToolAnswer {
  const fitted = shortenToFit(answer, answerBudget(maxTokens));
  if (!fitted) throw budgetTooSmall(maxTokens, 'body');
  return { structured: fitted.answer as Record<string, unknown>, text: fitted.text };
}

/** A page position: a numbered page, and how many of its items earlier answers returned. */
interface PagePosition {
  page: number;
  skip: number;
}
const isPagePosition = (v: any): v is PagePosition => Number.isInteger(v?.page) && v.page >= 1 && v.page <= 1_000_000 && Number.isInteger(v?.skip) && v.skip >= 0;

export const PageCursorInput = { ...CursorParam, description: 'The cursor of a previous answer whose budget left items out: the items after them (page is then ignored)' };

/** A page schema with what a budget adds to it. */
export const budgeted = (page: TObject) =>
  Type.Object({
    ...page.properties,
    omittedCount: Type.Optional(Type.Integer({ minimum: 0, description: 'Items of this page the budget left out' })),
    cursor: Type.Optional(Type.String({ description: 'Present when the budget left items of this page out: ask again with it for them' })),
  });

/**
 * One numbered page of a list, its leading items within the budget. When the budget cuts the page, the answer
 * says how many items it left out and carries a cursor to the same page, after the items returned.
 */
export async function pageWithin<K extends string, P extends Record<K, object[]> & { pagination: Pagination }>(
  key: K,
  input: { page?: number; cursor?: string },
  maxTokens: number,
  list: (page: number) => Promise<P>,
): Promise<ToolAnswer> {
  const at = input.cursor ? decodeCursor(input.cursor, isPagePosition, '/cursor', 'body') : { page: input.page ?? 1, skip: 0 };
  const page = await list(at.page);
  const items = page[key].slice(at.skip);
  const answerOf = (n: number) => ({
    ...page,
    [key]: items.slice(0, n),
    ...(n < items.length ? { omittedCount: items.length - n, cursor: encodeCursor({ page: at.page, skip: at.skip + n }) } : {}),
  });
  const fitted = longestFit(items.length, answerBudget(maxTokens), answerOf, (i) => JSON.stringify(items[i]));
  if (!fitted) throw budgetTooSmall(maxTokens, 'body');
  return { structured: fitted.answer, text: fitted.text };
}
