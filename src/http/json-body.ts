import { createHash } from 'node:crypto';
import { parseChunked } from '@discoveryjs/json-ext';
import type { Context } from 'koa';
import { AppError, type FieldError } from '../errors.js';
import { type ReadBody, readBody } from './body-reader.js';
import { yieldToEventLoop } from '../infra/event-loop.js';

/**
 * A body at least this large is worked on in several turns of the event loop (between reading, parsing and
 * what the router does next), so that no other request waits for all of it at once.
 */
export const largeBodyBytes = 64 * 1024;

/** A body over 1 MiB is 413 (docs/api.md, "Everywhere"). */
export const maxBodyBytes = 1024 * 1024;
/** How deep objects and arrays may nest in a request body: deeper values could not be read back safely. */
export const maxJsonDepth = 64;

const invalidBody = (message: string, path = '/') =>
  new AppError('invalid_request', path === '/' ? `The request body ${message}` : `Field '${path.slice(1)}' ${message}`, {
    errors: [{ path, message, in: 'body' }],
  });

/**
 * A request body's bytes (what an Idempotency-Key's fingerprint is taken of), in the slices they were read into:
 * a large body is never joined into one buffer.
 */
export interface BodyBytes {
  length: number;
  slices: readonly Buffer[];
}

/** A request body as read: its value, and its bytes. */
export interface JsonBody {
  value: unknown;
  bytes: BodyBytes;
}

/**
 * Reads a JSON request body strictly, so that what is stored is exactly what was sent: bytes that are not
 * UTF-8, a string holding a lone surrogate (`"\ud800"`), a `__proto__` key and nesting deeper than
 * maxJsonDepth are each a 400 naming where, instead of being rewritten or stored. An empty body reads as {}.
 * A large body is read, parsed and checked a slice at a time, letting other requests in between, so that the
 * time one turn of the event loop takes does not grow with the body.
 */
export async function readJsonBody(ctx: Context, limit = maxBodyBytes): Promise<JsonBody> {
  let read: ReadBody;
  try {
    read = await readBody(ctx.req, { limit, length: ctx.request.length, sliceBytes: largeBodyBytes });
  } catch (err) {
    if ((err as { type?: string }).type === 'entity.too.large') throw new AppError('payload_too_large', `The request body is larger than ${limit / (1024 * 1024)} MiB`);
    throw new AppError('invalid_request', 'The request body could not be read', { cause: err });
  }
  const bytes: BodyBytes = { length: read.length, slices: read.slices };
  if (bytes.length === 0) return { value: {}, bytes };
  if (read.invalidUtf8At !== undefined) throw invalidBody(`is not valid UTF-8 (byte ${read.invalidUtf8At} is the first that is not)`);
  const large = bytes.length >= largeBodyBytes;
  // A body far deeper than allowed is refused before its parse builds all of it; one just past the bound is
  // parsed, so that the walk below can name where it goes too deep.
  const nesting = new NestingScanner();
  const escapes = new EscapeFinder();
  let value: unknown;
  try {
    if (large) {
      value = await parseChunked(async function* () {
        for (const slice of bytes.slices) {
          await yieldToEventLoop();
          if (nesting.scan(slice) > 2 * maxJsonDepth) throw invalidBody(`nests deeper than ${maxJsonDepth} levels`);
          escapes.look(slice);
          yield slice;
        }
      });
    } else {
      // Under largeBodyBytes, the body is one slice.
      const [whole] = bytes.slices;
      if (nesting.scan(whole) > 2 * maxJsonDepth) throw invalidBody(`nests deeper than ${maxJsonDepth} levels`);
      escapes.look(whole);
      value = JSON.parse(whole.toString('utf8'));
    }
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError('invalid_request', `The request body is not valid JSON: ${(err as Error).message}`);
  }
  if (nesting.deepest <= maxJsonDepth && !escapes.found) return { value, bytes };
  const problem = await shapeProblem(value, large);
  if (problem) throw invalidBody(problem.message, problem.path);
  return { value, bytes };
}

/** The SHA-256 of a body's bytes, hashed a slice at a time, a turn of the event loop each. */
export async function digestOf(bytes: BodyBytes | Buffer): Promise<string> {
  const hash = createHash('sha256');
  const slices = Buffer.isBuffer(bytes) ? [bytes] : bytes.slices;
  let hashed = 0;
  for (const slice of slices) {
    for (let at = 0; at < slice.length; at += largeBodyBytes) {
      if (hashed > 0) await yieldToEventLoop();
      const part = slice.subarray(at, at + largeBodyBytes);
      hash.update(part);
      hashed += part.length;
    }
  }
  return hash.digest('base64url');
}

/**
 * Whether JSON text holds a `\u` escape or a `__proto__` key, looked for slice by slice. Valid UTF-8 cannot
 * encode a surrogate, so a lone one can only come from a \u escape, and a `__proto__` key only from its own
 * spelling or escapes: a body with neither, and no deeper than allowed, needs no walk (the walk visits every key
 * of a large body). A spelling split between two slices is found in the seam of the two.
 */
class EscapeFinder {
  found = false;
  /** The last bytes before the next slice: one fewer than the longest spelling looked for. */
  private before: Buffer = Buffer.alloc(0);

  look(slice: Buffer): void {
    const seam = Buffer.concat([this.before, slice.subarray(0, 8)]);
    this.found ||= [seam, slice].some((part) => part.includes('\\u') || part.includes('__proto__'));
    this.before = Buffer.concat([this.before, slice.subarray(-8)]).subarray(-8);
  }
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
