import type { Pagination } from './generated/types.gen.js';

/** The page fields of every paged list: the API's Pagination schema. */
export type { Pagination };

/** A paged list read lazily: `for await (const item of list)` walks every item; `pages()` yields whole pages. */
export interface Paged<T, P> extends AsyncIterable<T> {
  pages(): AsyncIterableIterator<P>;
  /** Every item, read into one array: only for lists known to be small. */
  toArray(): Promise<T[]>;
}

/**
 * Pages by number, starting at `startPage`, until one comes back empty or the total is reached. A write between
 * two pages can shift items across the page boundary, as with any offset pagination.
 */
export function pagedByNumber<T, P extends { pagination: Pagination }>(
  fetchPage: (page: number) => Promise<P>,
  itemsOf: (page: P) => T[],
  startPage = 1,
): Paged<T, P> {
  async function* pages(): AsyncIterableIterator<P> {
    for (let page = startPage; ; page++) {
      const answer = await fetchPage(page);
      const items = itemsOf(answer);
      if (items.length > 0) yield answer;
      const { limit, total } = answer.pagination;
      if (items.length === 0 || page * limit >= total) return;
    }
  }
  return fromPages(pages, itemsOf);
}

/** Pages by cursor: `next` gives the following page's request from the last answer, or undefined at the end. */
export function pagedByCursor<T, P, C>(
  first: C,
  fetchPage: (cursor: C) => Promise<P>,
  itemsOf: (page: P) => T[],
  next: (page: P, cursor: C) => C | undefined,
): Paged<T, P> {
  async function* pages(): AsyncIterableIterator<P> {
    for (let cursor: C | undefined = first; cursor !== undefined; ) {
      const answer: P = await fetchPage(cursor);
      if (itemsOf(answer).length > 0) yield answer;
      cursor = next(answer, cursor);
    }
  }
  return fromPages(pages, itemsOf);
}

function fromPages<T, P>(pages: () => AsyncIterableIterator<P>, itemsOf: (page: P) => T[]): Paged<T, P> {
  return {
    pages,
    async *[Symbol.asyncIterator]() {
      for await (const page of pages()) yield* itemsOf(page);
    },
    async toArray() {
      const all: T[] = [];
      for await (const page of pages()) all.push(...itemsOf(page));
      return all;
    },
  };
}
