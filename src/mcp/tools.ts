import type { Static, TObject, TSchema } from '@sinclair/typebox';
import { validatePart } from '../api/validation.js';
import { meteredAnswer } from '../answer-cache/cache-step.js';
import type { ResponseCache } from '../answer-cache/response-cache.js';
import { roleAtLeast } from '../auth/caller.js';
import { AppError } from '../errors.js';
import type { RequestGate } from '../gate/gate.js';
import type { AnyOperation, RouteInput, OperationSpec, ToolAnswer, ToolCall, ToolFace, ToolRun } from '../api/operation.js';
import type { NodeService } from '../nodes/service.js';
import type { PlaybookService } from '../playbooks/service.js';
import type { Bundle } from '../retrieval/schemas.js';
import type { RetrievalService } from '../retrieval/service.js';
import { answer } from '../tokens/answer-budget.js';

export type { ToolAnswer, ToolCall };

/**
 * What the MCP layer runs besides the operations: the gate that meters a retrieval, the answer cache REST shares,
 * and the services resources, prompts and completions read.
 */
export interface ToolServices {
  playbooks: PlaybookService;
  nodes: NodeService;
  retrieval: RetrievalService;
  gate: Pick<RequestGate, 'meter'>;
  responseCache: ResponseCache;
}

/** An operation as MCP sees it: one whose definition has a tool face. */
export type ToolOperation = OperationSpec<TObject, TObject, TSchema, TObject> & {
  tool: ToolFace<TObject, TObject, TObject, TSchema>;
  run: NonNullable<AnyOperation['run']>;
};

/** The operations that are tools, in the order the API lists them. */
export const toolsOf = (operations: AnyOperation[]): ToolOperation[] => operations.filter((op): op is ToolOperation => Boolean(op.tool && op.run));


/** Who may call an operation is its definition's rule, whichever face the call came through. */
function checkRole(op: ToolOperation, call: ToolCall): void {
  const { access } = op;
  if (access.kind === 'workspace' && !roleAtLeast(call.caller.role, access.minRole)) {
    throw new AppError('insufficient_role', `This needs the ${access.minRole} role or higher; the caller is ${call.caller.role}`);
  }
}

/** The REST path of an operation with these path parameters: the response cache keys an answer by it. */
function restPath(op: ToolOperation, call: ToolCall, params: Record<string, unknown>): string {
  const values: Record<string, unknown> = { ...params, workspaceId: call.caller.workspaceId };
  return op.path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(String(values[name])));
}

/**
 * The operation with this input, as its REST route runs it. A metered one is counted (one round trip through the
 * gate, the count taken back if it fails) and answered from the response cache under the key REST uses, so an MCP
 * and a REST retrieval of the same request share an entry.
 */
async function runOperation(s: ToolServices, call: ToolCall, op: ToolOperation, input: Partial<RouteInput<TObject, TObject, TSchema>>): Promise<ToolAnswer> {
  const { caller } = call;
  const full = { params: {}, query: {}, body: undefined, ...input, caller, principal: caller.principal, requestId: caller.requestId };
  if (!op.metered) return answer(await op.run(full));
  const metered = await s.gate.meter(call.token, caller);
  // A POST's answer is keyed by its body, as REST keys it (src/http/pipeline.ts).
  const request = { route: op, path: restPath(op, call, full.params), query: op.body ? { ...full.query, ...(full.body as Record<string, unknown>) } : full.query };
  const step = await meteredAnswer(s.responseCache, { caller, ...metered }, request, () => op.run(full));
  if (step.kind === 'uncached') return answer(step.body);
  if (step.kind === 'not-modified') throw new Error('A tool call sends no If-None-Match');
  const text = step.bytes.toString('utf8');
  return { structured: (step.body ?? JSON.parse(text)) as Record<string, unknown>, text };
}

/** What a tool's run gets: the call, its budget, and its own operation. */
function toolRun(s: ToolServices, call: ToolCall, op: ToolOperation): ToolRun<TObject, TObject, TSchema> {
  return {
    ...call,
    budget: (maxTokens) => maxTokens ?? call.defaultMaxTokens,
    operation: (input) => runOperation(s, call, op, input),
  };
}

/** Validates arguments with the same ajv as a REST body: a bad argument is invalid_request, before anything runs. */
const validArguments = (schema: TObject, args: unknown): Static<TObject> => validatePart<Static<TObject>>(schema, structuredClone(args ?? {}), 'body');

/** One tool call: its arguments validated (a malformed call is invalid_request whoever sends it), its caller's role checked, then its face's run. */
export function runTool(s: ToolServices, call: ToolCall, op: ToolOperation, args: unknown): Promise<ToolAnswer> {
  const valid = validArguments(op.tool.input, args);
  checkRole(op, call);
  return op.tool.run(valid, toolRun(s, call, op));
}

/** A prompt's bundle: the get_bundle operation (counted, cached) for one playbook, its JSON within `maxTokens`. */
export async function promptBundle(s: ToolServices, call: ToolCall, bundle: ToolOperation, playbookId: string, maxTokens: number): Promise<Bundle> {
  const query = validatePart<Record<string, unknown>>(bundle.query!, { playbookId, maxTokens }, 'query');
  return (await runOperation(s, call, bundle, { query })).structured as Bundle;
}
