/** The shapes the facade's methods take, cut from the generated `…Data` types. */

export type Body<D extends { body?: unknown }> = D['body'];
export type Query<D extends { query?: unknown }> = NonNullable<D['query']>;
export type Item<A extends readonly unknown[]> = A[number];
/** A list's query without the page it starts at, which the walk sets. */
export type Walk<D extends { query?: unknown }> = Omit<Query<D>, 'page'> & { page?: number };
