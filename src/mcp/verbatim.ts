import { randomBytes } from 'node:crypto';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { CallToolResult, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { LRUCache } from 'lru-cache';

/**
 * A tool result sent as the JSON text it already is. A tool answers its structured content and the same as JSON
 * text (a cached retrieval's text is the response cache's bytes); the SDK's transport would serialise the text and
 * the whole structured content again, and copy the answer through a Fetch Response. Instead the result goes
 * through the transport with two short stand-ins, and the answer's bytes are put together around them: the text
 * as a JSON string, and the same text as it is for the structured content. What this saves against the REST
 * bundle is printed by `npm run bench` (scenario mcp-bundle).
 */

/** Results whose structured content is, as JSON, exactly their first (text) block. */
const sentAsText = new WeakSet<object>();

/** Marks a result whose structured content's JSON is its text block (a tool's answer, see callTool): sent as that text. */
export function structuredAsText(result: CallToolResult): CallToolResult {
  if (result.structuredContent !== undefined && result.content[0]?.type === 'text') sentAsText.add(result);
  return result;
}

/** A text as the answer carries it: as a JSON string (the text block), and as it is (the structured content). */
interface Encoded {
  asString: Buffer;
  asJson: Buffer;
}

/**
 * The texts sent lately, encoded: a cached retrieval answers the same large text again and again, and escaping it
 * into a JSON string is the dearest step of its answer. Keyed by the text itself, so an entry is never stale.
 */
const encoded = new LRUCache<string, Encoded>({
  maxSize: 32 * 2 ** 20,
  sizeCalculation: (value, text) => value.asString.length + value.asJson.length + text.length,
});

function encode(text: string): Encoded {
  let found = encoded.get(text);
  if (!found) encoded.set(text, (found = { asString: Buffer.from(JSON.stringify(text)), asJson: Buffer.from(text) }));
  return found;
}

/** Stand-ins no client can guess (a JSON-RPC id is the client's choice, and is sent back). */
const prefix = `verbatim:${randomBytes(12).toString('base64url')}:`;
const standIn = new RegExp(`"${prefix}(\\d+)"`);
let next = 0;

/** The SDK's web-standard Streamable HTTP transport, its answers' marked tool results sent verbatim. */
export class VerbatimTransport extends WebStandardStreamableHTTPServerTransport {
  /** What each stand-in stands for. */
  private readonly parts = new Map<string, Buffer>();

  override send(message: JSONRPCMessage, options?: Parameters<WebStandardStreamableHTTPServerTransport['send']>[1]): Promise<void> {
    if (!('result' in message) || !sentAsText.has(message.result)) return super.send(message, options);
    const result = message.result as CallToolResult;
    const [first, ...rest] = result.content as [{ type: 'text'; text: string }, ...CallToolResult['content']];
    const { asString, asJson } = encode(first.text);
    const content = [{ ...first, text: this.standIn(asString) }, ...rest];
    return super.send({ ...message, result: { ...result, content, structuredContent: this.standIn(asJson) as never } }, options);
  }

  private standIn(bytes: Buffer): string {
    const key = String(next++);
    this.parts.set(key, bytes);
    return prefix + key;
  }

  /** The answer's bytes, each stand-in replaced by what it stands for. */
  async bytesOf(response: Response): Promise<Buffer> {
    const body = Buffer.from(await response.arrayBuffer());
    if (this.parts.size === 0) return body;
    // split() puts each captured key between the pieces around it: text, key, text, key, …, text.
    const pieces = body.toString('utf8').split(standIn);
    return Buffer.concat(pieces.map((piece, i) => (i % 2 === 0 ? Buffer.from(piece) : this.parts.get(piece)!)));
  }
}
