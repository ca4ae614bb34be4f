import { Type } from '@sinclair/typebox';
import { invalidField } from '../errors.js';

/**
 * Cursors: where the next page of an answer starts, opaque to clients (base64url of a small JSON object), so
 * that what they hold can change without changing the API.
 */

export const CursorParam = Type.String({
  minLength: 1,
  maxLength: 500,
  pattern: '^[A-Za-z0-9_-]+$',
  description: 'The cursor a previous answer gave: continue after what it returned',
});

export const encodeCursor = (position: object): string => Buffer.from(JSON.stringify(position)).toString('base64url');

/** The position a cursor holds, when `valid` accepts it; else a 400 on the field that carried it. */
export function decodeCursor<T>(cursor: string, valid: (value: any) => value is T, field = '/cursor', where: 'query' | 'body' = 'query'): T {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (valid(value)) return value;
  } catch {
    // not JSON: refused below
  }
  throw invalidField(field, 'is not a cursor an answer gave', where);
}
