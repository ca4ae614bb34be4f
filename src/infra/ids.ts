import { randomBytes } from 'node:crypto';
import { notFound } from '../errors.js';

const alphabet = '0123456789abcdefghijklmnopqrstuvwxyz';
const randomLength = 20;

/** An opaque id with a type prefix (`pb_…`), 20 random base36 characters: unique across the service. */
export function newId(prefix: string): string {
  const bytes = randomBytes(randomLength);
  let out = '';
  for (const b of bytes) out += alphabet[b % 36];
  return `${prefix}_${out}`;
}

/** newId's shape, or that of an id a statement makes itself (the prefix and a UUID's 32 hex digits). */
const idShape = new RegExp(`^([a-z]+)_(?:[${alphabet}]{${randomLength}}|[0-9a-f]{32})$`);

/** Whether `id` has exactly a shape the service gives its ids: an id from elsewhere is trusted only in that shape. */
export function isIdOf(prefix: string, id: string): boolean {
  const match = idShape.exec(id);
  return match !== null && match[1] === prefix;
}

/**
 * The id a reference names: the reference itself when it starts like an id of `prefix` (a slug never holds '_'),
 * else what `byName` finds for it as a name, else a 404 naming `what`. Agents name playbooks and nodes as they
 * read them, by id or by name.
 */
export async function idOf(prefix: string, reference: string, byName: (name: string) => Promise<string | undefined>, what: string): Promise<string> {
  if (reference.startsWith(`${prefix}_`)) return reference;
  const id = await byName(reference);
  if (!id) throw notFound(what);
  return id;
}

/** The service's clock: ISO 8601 UTC with milliseconds. Injected so tests can move time. */
export type Clock = () => Date;
export const systemClock: Clock = () => new Date();
export const isoNow = (clock: Clock = systemClock) => clock().toISOString();
