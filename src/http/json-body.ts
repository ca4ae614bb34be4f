import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import { parseChunked } from '@discoveryjs/json-ext';
import type { Context } from 'koa';
import getRawBody from 'raw-body';
import { AppError, type FieldError } from '../errors.js';

/**
 * A body at least this large is worked on in several turns of the event loop (between reading, parsing and
 * what the router does next), so that no other request waits for all of it at once.
 */
export const largeBodyBytes = 64 * 1024;

/** Lets the event loop serve whatever else is waiting before the next step of a large body. */
export const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** decisions §2: a body over 1 MiB is 413. */
export const maxBodyBytes = 1024 * 1024;
/** How deep objects and arrays may nest in a request body: deeper values could not be read back safely. */
export const maxJsonDepth = 64;

const invalidBody = (message: string, path = '/') =>
  new AppError('invalid_request', path === '/' ? `The request body ${message}` : `Field '${path.slice(1)}' ${message}`, {
    errors: [{ path, message, in: 'body' }],
  });

/** A request body as read: its value, and its bytes (what an Idempotency-Key's fingerprint is taken of). */
export interface JsonBody {
  value: unknown;
  bytes: Buffer;
}

/**
 * Reads a JSON request body strictly, so that what is stored is exactly what was sent: bytes that are not
 * UTF-8, a string holding a lone surrogate (`"\ud800"`), a `__proto__` key and nesting deeper than
 * maxJsonDepth are each a 400 naming where, instead of being rewritten or stored. An empty body reads as {}.
 * A large body is parsed and checked a slice at a time, letting other requests in between, so that the time one
 * turn of the event loop takes does not grow with the body.
 */
export async function readJsonBody(ctx: Context, limit = maxBodyBytes): Promise<JsonBody> {
  let bytes: Buffer;
  try {
    bytes = await getRawBody(ctx.req, { limit, length: ctx.request.length });
  } catch (err) {
    if ((err as { type?: string }).type === 'entity.too.large') throw new AppError('payload_too_large', `The request body is larger than ${limit / (1024 * 1024)} MiB`);
    throw new AppError('invalid_request', 'The request body could not be read', { cause: err });
  }
  if (bytes.length === 0) return { value: {}, bytes };
  if (!isUtf8(bytes)) throw invalidBody(`is not valid UTF-8 (byte ${firstInvalidUtf8(bytes)} is the first that is not)`);
  const large = bytes.length >= largeBodyBytes;
  // A body far deeper than allowed is refused before its parse builds all of it; one just past the bound is
  // parsed, so that the walk below can name where it goes too deep.
  const nesting = new NestingScanner();
  // Valid UTF-8 cannot encode a surrogate, so a lone one can only come from a \u escape, and a `__proto__` key
  // only from its own spelling or escapes: a body with neither, and no deeper than allowed, needs no walk (the
  // walk visits every key of a large body). Looked for slice by slice, each slice overlapping the one before.
  let escapes = false;
  const lookForEscapes = (from: number, to: number) => {
    const part = bytes.subarray(Math.max(0, from - 8), to);
    escapes ||= part.includes('\\u') || part.includes('__proto__');
  };
  let value: unknown;
  try {
    if (large) {
      value = await parseChunked(async function* () {
        for (let at = 0; at < bytes.length; at += largeBodyBytes) {
          await yieldToEventLoop();
          const slice = bytes.subarray(at, at + largeBodyBytes);
          if (nesting.scan(slice) > 2 * maxJsonDepth) throw invalidBody(`nests deeper than ${maxJsonDepth} levels`);
          lookForEscapes(at, at + slice.length);
          yield slice;
        }
      });
    } else {
      if (nesting.scan(bytes) > 2 * maxJsonDepth) throw invalidBody(`nests deeper than ${maxJsonDepth} levels`);
      lookForEscapes(0, bytes.length);
      value = JSON.parse(bytes.toString('utf8'));
    }
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError('invalid_request', `The request body is not valid JSON: ${(err as Error).message}`);
  }
  if (nesting.deepest <= maxJsonDepth && !escapes) return { value, bytes };
  const problem = await shapeProblem(value, large);
  if (problem) throw invalidBody(problem.message, problem.path);
  return { value, bytes };
}

/** The SHA-256 of a body's bytes, hashed a slice at a time when the body is large. */
export async function digestOf(bytes: Buffer): Promise<string> {
  const hash = createHash('sha256');
  for (let at = 0; at < bytes.length; at += largeBodyBytes) {
    if (at > 0) await yieldToEventLoop();
    hash.update(bytes.subarray(at, at + largeBodyBytes));
  }
  return hash.digest('base64url');
}

/** Values a walk of a large body visits between two turns of the event loop. */
const walkSlice = 20_000;

/**
 * The first thing in a parsed body that may not be stored, walked with an explicit stack (a deep value must
 * not be able to overflow the call stack of the check meant to refuse it). Paths are spelled only for a problem.
 */
async function shapeProblem(root: unknown, large: boolean): Promise<FieldError | undefined> {
  type Step = { value: unknown; key: string; parent?: Step; depth: number };
  const pathOf = (step: Step | undefined): string => {
    const keys: string[] = [];
    for (let s = step; s?.parent; s = s.parent) keys.push(s.key.replace(/~/g, '~0').replace(/\//g, '~1'));
    return keys.length ? `/${keys.reverse().join('/')}` : '/';
  };
  const stack: Step[] = [{ value: root, key: '', depth: 0 }];
  for (let visited = 1; stack.length > 0; visited++) {
    if (large && visited % walkSlice === 0) await yieldToEventLoop();
    const step = stack.pop()!;
    const { value, depth } = step;
    if (typeof value === 'string') {
      if (!isWellFormed(value)) return { path: pathOf(step), message: 'holds a lone surrogate (not a Unicode character)' };
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= maxJsonDepth) return { path: pathOf(step), message: `nests deeper than ${maxJsonDepth} levels` };
    for (const key of Object.keys(value)) {
      const child: Step = { value: (value as Record<string, unknown>)[key], key, parent: step, depth: depth + 1 };
      if (key === '__proto__') return { path: pathOf(child), message: 'is not an allowed key' };
      if (!isWellFormed(key)) return { path: pathOf(child), message: 'is a key holding a lone surrogate (not a Unicode character)' };
      stack.push(child);
    }
  }
  return undefined;
}

/** The deepest nesting of objects and arrays in JSON text, counted on its bytes slice by slice (brackets inside strings skipped). */
class NestingScanner {
  deepest = 0;
  private depth = 0;
  private inString = false;
  /** Whether the slice before ended inside an escape (a backslash in a string). */
  private escaped = false;

  scan(bytes: Uint8Array): number {
    let { depth, deepest, inString, escaped } = this;
    for (let i = 0; i < bytes.length; i++) {
      const b = bytes[i];
      if (escaped) escaped = false;
      else if (inString) {
        if (b === 0x5c) escaped = true;
        else if (b === 0x22) inString = false;
      } else if (b === 0x22) inString = true;
      else if (b === 0x7b || b === 0x5b) deepest = Math.max(deepest, ++depth);
      else if (b === 0x7d || b === 0x5d) depth -= 1;
    }
    Object.assign(this, { depth, deepest, inString, escaped });
    return deepest;
  }
}

const isWellFormed = (s: string) => (s as string & { isWellFormed(): boolean }).isWellFormed();

/** The offset of the first byte that does not belong to a well-formed UTF-8 sequence (RFC 3629). */
function firstInvalidUtf8(bytes: Buffer): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i];
    const [length, min, max] =
      b < 0x80 ? [1, 0, 0] : b >= 0xc2 && b <= 0xdf ? [2, 0x80, 0xbf] : b === 0xe0 ? [3, 0xa0, 0xbf] : b === 0xed ? [3, 0x80, 0x9f]
        : b >= 0xe1 && b <= 0xef ? [3, 0x80, 0xbf] : b === 0xf0 ? [4, 0x90, 0xbf] : b >= 0xf1 && b <= 0xf3 ? [4, 0x80, 0xbf] : b === 0xf4 ? [4, 0x80, 0x8f] : [0, 0, 0];
    if (length === 0) return i;
    // The second byte has its own range (it rules out overlong forms and surrogates); the rest are 80..BF.
    for (let k = 1; k < length; k++) {
      const c = bytes[i + k];
      if (c === undefined || c < (k === 1 ? min : 0x80) || c > (k === 1 ? max : 0xbf)) return i;
    }
    i += length;
  }
  return i;
}
