import type { Pagination } from './common-schemas.js';

/** A page as a list query asks for it: its number, from 1, and its size. */
export type PageAsked = Pick<Pagination, 'page' | 'limit'>;

/** The rows a list statement skips and returns for a page. */
export const rowsOf = ({ page, limit }: PageAsked) => ({ skip: (page - 1) * limit, limit });

/** One page of a list, under `key`, with the pagination every numbered list answers with. */
export function pageOf<K extends string, T>(key: K, items: T[], { page, limit }: PageAsked, total: number) {
  return { [key]: items, pagination: { page, limit, total } } as Record<K, T[]> & { pagination: Pagination };
}
