import { hash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * API key format: `pk_user_` (humans) or `pk_` (agents), 32 random base62 characters (≈190 bits) and
 * a 6-character base62 CRC-32 of everything before it. The checksum lets a mistyped or truncated key
 * be refused before any database or Redis look-up.
 */
const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const randomLength = 32;
const checksumLength = 6;
const keyPattern = /^pk_(user_)?[0-9A-Za-z]{38}$/;

export type KeyKind = 'user' | 'agent';

function base62(bytes: Buffer, length: number): string {
  let out = '';
  // Rejection sampling keeps every character uniformly likely.
  let pool = bytes;
  let i = 0;
  while (out.length < length) {
    if (i >= pool.length) {
      pool = randomBytes(length);
      i = 0;
    }
    const b = pool[i++];
    if (b < 248) out += alphabet[b % 62];
  }
  return out;
}

function encodeChecksum(body: string): string {
  let n = crc32(body);
  let out = '';
  for (let i = 0; i < checksumLength; i++) {
    out = alphabet[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

export function generateKey(kind: KeyKind): { key: string; prefix: string; hash: string } {
  const body = (kind === 'user' ? 'pk_user_' : 'pk_') + base62(randomBytes(randomLength + 8), randomLength);
  const key = body + encodeChecksum(body);
  return { key, prefix: key.slice(0, 12), hash: hashKey(key) };
}

/** SHA-256 in one call: crypto.hash skips the Hash object createHash builds, and runs on every request. */
export function hashKey(key: string): string {
  return hash('sha256', key, 'hex');
}

/** The kind a well-formed key with a valid checksum belongs to; undefined for anything else. */
export function keyKind(token: string): KeyKind | undefined {
  if (!keyPattern.test(token)) return undefined;
  const body = token.slice(0, -checksumLength);
  if (encodeChecksum(body) !== token.slice(-checksumLength)) return undefined;
  return token.startsWith('pk_user_') ? 'user' : 'agent';
}
