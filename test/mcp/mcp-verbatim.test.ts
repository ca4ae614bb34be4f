import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { expect } from 'chai';
import { z } from 'zod';
import { VerbatimTransport, structuredAsText } from '../../src/mcp/verbatim.js';

const ToolsCall = z.object({ method: z.literal('tools/call'), params: z.object({ name: z.string() }) });
const headers = { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': '2025-06-18' };

/** A tool answer as the tools make one: its structured content and the same as JSON text. */
function toolResult(name: string) {
  const structured = { name, quoted: 'say "hi" \\ back', unicode: 'café ’ 😀 \u2028', nested: [{ n: 1 }, null, true] };
  return { content: [{ type: 'text' as const, text: JSON.stringify(structured) }], structuredContent: structured };
}

/** The answer of one POST through a stateless server whose tool results are (or are not) marked. */
async function answer(transport: WebStandardStreamableHTTPServerTransport, body: unknown, read: (r: Response) => Promise<Buffer>) {
  const server = new Server({ name: 'test', version: '1' }, { capabilities: { tools: {} } });
  Protocol.prototype.setRequestHandler.call(server, ToolsCall, async (request: z.infer<typeof ToolsCall>) =>
    transport instanceof VerbatimTransport ? structuredAsText(toolResult(request.params.name)) : toolResult(request.params.name));
  await server.connect(transport);
  const response = await transport.handleRequest(new Request('http://localhost/mcp', { method: 'POST', headers }), { parsedBody: body });
  const bytes = await read(response);
  await server.close();
  return JSON.parse(bytes.toString('utf8'));
}

describe('MCP tool results sent verbatim', () => {
  const call = (id: unknown, name: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name } });

  for (const [label, body] of [
    ['one call', call(1, 'a')],
    ['a batch, ids of either kind', [call('x"1', 'a'), call(2, 'b')]],
  ] as const) {
    it(`answers ${label} exactly as the SDK's own transport does`, async () => {
      const plain = await answer(new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true }), body, async (r) => Buffer.from(await r.arrayBuffer()));
      const verbatim = new VerbatimTransport({ enableJsonResponse: true });
      const read = async (r: Response) => {
        // What went through the SDK's transport holds stand-ins, not the texts.
        expect(await r.clone().text()).not.to.include('café');
        return verbatim.bytesOf(r);
      };
      expect(await answer(verbatim, body, read)).to.deep.equal(plain);
    });
  }
});
