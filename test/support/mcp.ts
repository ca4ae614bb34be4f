import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { expect } from 'chai';
import type { TestWorkspace } from './api.js';
import { env } from './harness.js';

/** An MCP client (the SDK's own) connected to the workspace's MCP endpoint of the run's service. */
export async function mcpClient(workspace: TestWorkspace, token = workspace.owner.key, baseUrl = env.service.url): Promise<Client> {
  const client = new Client({ name: 'playbooks-tests', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}${workspace.path('/mcp')}`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

const ajv = new Ajv({ strict: false, allErrors: true });
addFormats.default(ajv);

/** Calls a tool, expects success, and checks its structured content against the tool's output schema. */
export async function callOk(client: Client, name: string, args: Record<string, unknown>): Promise<any> {
  const { tools } = await client.listTools();
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  const result: any = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name} failed: ${result.content?.[0]?.text}`);
  const validate = ajv.compile(tool.outputSchema!);
  if (!validate(result.structuredContent)) throw new Error(`${name} output does not match its schema: ${ajv.errorsText(validate.errors)}`);
  // The text content is the same answer, as JSON.
  expect(JSON.parse(result.content[0].text)).to.deep.equal(result.structuredContent);
  return result.structuredContent;
}

/** Calls a tool, expects a tool error, and returns the problem it carries ({code, detail, errors?}). */
export async function callError(client: Client, name: string, args: Record<string, unknown>): Promise<{ code: string; detail: string; errors?: { path: string }[] }> {
  const result: any = await client.callTool({ name, arguments: args });
  if (!result.isError) throw new Error(`${name} succeeded, expected an error: ${JSON.stringify(result.structuredContent)}`);
  return JSON.parse(result.content[0].text);
}
