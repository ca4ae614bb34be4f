import { isUtf8 } from 'node:buffer';
import type { Readable } from 'node:stream';

/**
 * A request body as read: its bytes in slices of a fixed size (the last one shorter), and the offset of its first
 * byte that is not UTF-8, if any. The body is never joined into one buffer: copying all of a large body at once
 * (and having the memory for it mapped) held up every other request for that long.
 */
export interface ReadBody {
  slices: Buffer[];
  length: number;
  invalidUtf8At?: number;
}

/** A failure to read a body, typed as raw-body types its own (`entity.too.large`, `request.aborted`, …). */
export class BodyReadError extends Error {
  constructor(readonly type: string, message: string) {
    super(message);
  }
}

/**
 * Reads a request body into slices of sliceBytes, checking it is UTF-8 as each chunk arrives, with raw-body's
 * rules: a declared length over the limit is refused before anything is read, so is a body that grows past it
 * (the rest is left unread), and a body that ends short of or past its declared length is an error.
 */
export function readBody(stream: Readable, o: { limit: number; length?: number; sliceBytes: number }): Promise<ReadBody> {
  const length = o.length === undefined || Number.isNaN(o.length) ? undefined : o.length;
  return new Promise((resolve, reject) => {
    const slices = new Slicer(o.sliceBytes, length);
    const utf8 = new Utf8Check();
    let received = 0;
    const cleanup = () => {
      stream.off('aborted', onAborted);
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onEnd);
      stream.off('close', onAborted);
    };
    // Nothing more of the body is read: the answer goes out without waiting for the rest.
    const fail = (err: Error) => {
      cleanup();
      stream.unpipe();
      stream.pause();
      reject(err);
    };
    function onData(chunk: Buffer) {
      received += chunk.length;
      if (received > o.limit) return fail(new BodyReadError('entity.too.large', 'request entity too large'));
      utf8.push(chunk);
      slices.push(chunk);
    }
    function onEnd(err?: Error) {
      if (err) return fail(err);
      if (length !== undefined && received !== length) return fail(new BodyReadError('request.size.invalid', 'request size did not match content length'));
      cleanup();
      resolve({ slices: slices.end(), length: received, invalidUtf8At: utf8.end() });
    }
    // A stream that closes before its end was cut short, whether or not it said so.
    function onAborted() {
      fail(new BodyReadError('request.aborted', 'request aborted'));
    }
    if (length !== undefined && length > o.limit) return fail(new BodyReadError('entity.too.large', 'request entity too large'));
    if (!stream.readable) return fail(new BodyReadError('stream.not.readable', 'stream is not readable'));
    stream.on('aborted', onAborted);
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onEnd);
    stream.on('close', onAborted);
  });
}

/**
 * Copies chunks as they arrive into slices of a fixed size, whatever sizes the chunks come in: a body sent a
 * byte at a time is still worked on in slices, and each copy is as small as a chunk.
 */
class Slicer {
  private readonly slices: Buffer[] = [];
  private current?: Buffer;
  private filled = 0;
  private sliced = 0;

  constructor(private readonly size: number, private readonly expected?: number) {}

  push(chunk: Buffer): void {
    for (let at = 0; at < chunk.length; ) {
      this.current ??= Buffer.allocUnsafe(this.nextSize());
      const copied = chunk.copy(this.current, this.filled, at);
      at += copied;
      this.filled += copied;
      if (this.filled === this.current.length) this.close();
    }
  }

  end(): Buffer[] {
    if (this.current) this.close();
    return this.slices;
  }

  /** A slice no larger than what the declared length leaves, so that a small body takes only its own size. */
  private nextSize(): number {
    const left = (this.expected ?? 0) - this.sliced;
    return left > 0 ? Math.min(this.size, left) : this.size;
  }

  private close(): void {
    this.slices.push(this.current!.subarray(0, this.filled));
    this.sliced += this.filled;
    this.current = undefined;
    this.filled = 0;
  }
}

/**
 * Whether bytes that arrive in pieces are UTF-8 (RFC 3629), and where the first byte that is not is. A piece may
 * end inside a character: its unfinished end is carried over to the start of the next piece.
 */
class Utf8Check {
  private invalidAt?: number;
  private carried: Buffer = Buffer.alloc(0);
  /** The offset in the body of the first byte carried (of the next piece when nothing is). */
  private offset = 0;

  push(chunk: Buffer): void {
    if (this.invalidAt !== undefined) return;
    const bytes = this.carried.length ? Buffer.concat([this.carried, chunk]) : chunk;
    const whole = unfinishedFrom(bytes);
    const checked = bytes.subarray(0, whole);
    if (!isUtf8(checked)) {
      this.invalidAt = this.offset + firstInvalidUtf8(checked);
      return;
    }
    this.offset += whole;
    this.carried = Buffer.from(bytes.subarray(whole));
  }

  /** The offset of the first byte that is not UTF-8, if any: a character left unfinished at the end is not. */
  end(): number | undefined {
    return this.invalidAt ?? (this.carried.length ? this.offset : undefined);
  }
}

/** Where a character that these bytes end inside of starts (their length when they end on a character's end). */
function unfinishedFrom(bytes: Uint8Array): number {
  for (let k = 1; k <= Math.min(3, bytes.length); k++) {
    const b = bytes[bytes.length - k];
    if (b < 0x80) return bytes.length;
    // A lead byte: the character it starts is unfinished when it needs more bytes than are left.
    if (b >= 0xc0) return (b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2) > k ? bytes.length - k : bytes.length;
  }
  return bytes.length;
}

/** The offset of the first byte that does not belong to a well-formed UTF-8 sequence (RFC 3629). */
function firstInvalidUtf8(bytes: Uint8Array): number {
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
