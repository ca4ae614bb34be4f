import { randomBytes } from 'node:crypto';

const alphabet = '0123456789abcdefghijklmnopqrstuvwxyz';

/** An opaque id with a type prefix (`pb_…`), 20 random base36 characters: unique across the service. */
export function newId(prefix: string): string {
  const bytes = randomBytes(20);
  let out = '';
  for (const b of bytes) out += alphabet[b % 36];
  return `${prefix}_${out}`;
}

/** The service's clock: ISO 8601 UTC with milliseconds. Injected so tests can move time. */
export type Clock = () => Date;
export const systemClock: Clock = () => new Date();
export const isoNow = (clock: Clock = systemClock) => clock().toISOString();
