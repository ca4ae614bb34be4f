import { type Static, type TObject, type TSchema, Type } from '@sinclair/typebox';
import type { AnnotationService } from '../annotations/service.js';
import { AnnotationSchema, CreateBody as AnnotateInput } from '../annotations/schemas.js';
import { type Caller, roleAtLeast } from '../auth/caller.js';
import { AppError } from '../errors.js';
import type { FeedbackService } from '../feedback/service.js';
import { CreateBody as FeedbackInput, FeedbackSchema } from '../feedback/schemas.js';
import type { RequestGate } from '../gate/gate.js';
import { Strict } from '../api/common-schemas.js';
import { meteredAnswer } from '../answer-cache/cache-step.js';
import type { ResponseCache } from '../answer-cache/response-cache.js';
import type { AnyRoute } from '../http/route.js';
import { validatePart } from '../api/validation.js';
import { type ListNodesQuery, CreateBody as NodeCreateBody, ListQuery as NodeListQuery, NodeDetailSchema, NodePageSchema } from '../nodes/schemas.js';
import type { NodeService } from '../nodes/service.js';
import { ListQuery as PlaybookListQuery, PlaybookListSchema } from '../playbooks/schemas.js';
import type { PlaybookService } from '../playbooks/service.js';
import { retrievalRoutes } from '../retrieval/routes.js';
import { MaxTokensInput, PageCursorInput, budgeted, entityWithin, pageWithin, withShare } from './budget.js';
import { type Bundle, BundleQuery, BundleSchema, FollowQuery, FollowSchema, ManifestQuery, ManifestSchema, UpdatesQuery, UpdatesSchema } from '../retrieval/schemas.js';
import type { RetrievalService } from '../retrieval/service.js';

/** The services the tools call: the very ones behind the REST routes. */
export interface ToolServices {
  playbooks: PlaybookService;
  nodes: NodeService;
  retrieval: RetrievalService;
  annotations: AnnotationService;
  feedback: FeedbackService;
  gate: Pick<RequestGate, 'meter'>;
  responseCache: ResponseCache;
}

/** One tool call's caller: admitted by the gate for the MCP request, with the key that request carried. */
export interface ToolCall {
  caller: Caller;
  token: string;
  /** The budget (tokens of the whole result) applied when a call names none. */
  defaultMaxTokens: number;
}

/** What a tool answers: its structured content, and the same as JSON text (cached answers come as their bytes). */
export interface ToolAnswer {
  structured: Record<string, unknown>;
  text: string;
}

export interface Tool {
  name: string;
  title: string;
  description: string;
  input: TObject;
  output: TObject;
  readOnly: boolean;
  /** A write that replaces what was there (so it may remove something), and gives the same state when repeated. */
  replaces?: boolean;
  run(s: ToolServices, call: ToolCall, args: any): Promise<ToolAnswer>;
}

const answer = (body: object): ToolAnswer => ({ structured: body as Record<string, unknown>, text: JSON.stringify(body) });

/** An object schema's properties without some of them: the REST schema stays the one description of each field. */
function without<T extends TObject>(schema: T, ...names: string[]): Record<string, TSchema> {
  return Object.fromEntries(Object.entries(schema.properties).filter(([name]) => !names.includes(name)));
}

const PlaybookRef = Type.String({ minLength: 1, maxLength: 200, description: 'The playbook’s id (pb_…) or its slug' });
const NodeRef = Type.String({
  minLength: 1,
  maxLength: 500,
  description: 'The context node’s id (cn_…), or a name as a [[wikilink]] in content gives it: its slug, file name, path, title or an alias',
});

const maxTokens = Type.Optional(MaxTokensInput);
const BundleInput = Strict({ playbook: PlaybookRef, ...without(BundleQuery, 'playbookId'), maxTokens }, { required: ['playbook'] });
const ManifestInput = Strict({ playbook: PlaybookRef, ...without(ManifestQuery, 'playbookId'), maxTokens }, { required: ['playbook'] });
const NodeInput = Strict({ node: NodeRef, maxTokens }, { required: ['node'] });
const NodeNamesInput = Strict(
  { node: NodeRef, aliases: NodeCreateBody.properties.aliases, tags: NodeCreateBody.properties.tags, maxTokens },
  { required: ['node'], minProperties: 2 },
);
const FollowInput = Strict({ node: NodeRef, ...FollowQuery.properties, maxTokens }, { required: ['node'] });
const SearchInput = Strict(
  {
    q: { ...NodeListQuery.properties.q, minLength: 1 },
    nodeType: NodeListQuery.properties.nodeType,
    page: NodeListQuery.properties.page,
    limit: NodeListQuery.properties.limit,
    cursor: Type.Optional(PageCursorInput),
    maxTokens,
  },
  { required: ['q'] },
);
const PlaybooksInput = Strict({ ...PlaybookListQuery.properties, cursor: Type.Optional(PageCursorInput), maxTokens });
const UpdatesInput = Strict({ ...UpdatesQuery.properties, maxTokens }, { required: ['since'] });

type PlaybookListQuery = Static<typeof PlaybookListQuery>;

/** The retrieval routes of each set of services, built once: the tools answer as they do. */
const restRoutes = new WeakMap<ToolServices, AnyRoute[]>();

/** The REST route that takes `query`: the one whose answer a retrieval tool gives. */
function restTwin(s: ToolServices, query: TObject): AnyRoute {
  let routes = restRoutes.get(s);
  if (!routes) restRoutes.set(s, (routes = retrievalRoutes(s)));
  const route = routes.find((r) => r.query === query);
  if (!route) throw new Error('No retrieval route takes this query');
  return route;
}

/**
 * A bundle or manifest, through the answer step its REST route takes (src/answer-cache/cache-step.ts): counted
 * against the quota (one round trip through the gate, the count taken back if the retrieval fails) and answered
 * from the same response cache under the same key (the route's operation and path, the validated arguments as its
 * query), so an MCP and a REST retrieval of the same request share an entry. The REST answer's budget is the
 * JSON body's, so the tool asks for the share of its budget that one copy of the answer may take.
 */
async function retrieval(s: ToolServices, call: ToolCall, restQuery: TObject, query: Record<string, unknown>, produce: () => Promise<object>): Promise<ToolAnswer> {
  const { caller } = call;
  const route = restTwin(s, restQuery);
  const metered = await s.gate.meter(call.token, caller);
  const path = route.path.replace(':workspaceId', encodeURIComponent(caller.workspaceId));
  const step = await meteredAnswer(s.responseCache, { caller, ...metered }, { route, path, query }, produce);
  if (step.kind === 'uncached') return answer(step.body!);
  if (step.kind === 'not-modified') throw new Error('A tool call sends no If-None-Match');
  const text = step.bytes.toString('utf8');
  return { structured: (step.body ?? JSON.parse(text)) as Record<string, unknown>, text };
}

/**
 * A playbook retrieval (get_bundle, get_manifest) through its REST twin: the tool's arguments with the playbook's
 * id, and one copy's share of the budget as the REST query's.
 */
async function playbookRetrieval(s: ToolServices, call: ToolCall, input: TObject, args: unknown, kind: 'bundle' | 'manifest'): Promise<ToolAnswer> {
  const { playbook, maxTokens, ...rest } = valid<{ playbook: string; maxTokens?: number } & Record<string, unknown>>(input, args);
  const playbookId = await s.playbooks.idOf(call.caller, playbook);
  return withShare(budgetOf(call, { maxTokens }), (share) => {
    const query = { playbookId, ...rest, maxTokens: share };
    return kind === 'bundle'
      ? retrieval(s, call, BundleQuery, query, () => s.retrieval.bundle(call.caller, query as BundleQuery))
      : retrieval(s, call, ManifestQuery, query, () => s.retrieval.manifest(call.caller, query as ManifestQuery));
  });
}

/** A prompt's bundle: a retrieval like get_bundle's (counted, cached), its JSON within `maxTokens`. */
export async function promptBundle(s: ToolServices, call: ToolCall, playbookId: string, maxTokens: number): Promise<Bundle> {
  const query = validatePart<BundleQuery>(BundleQuery, { playbookId, maxTokens }, 'query');
  return (await retrieval(s, call, BundleQuery, query, () => s.retrieval.bundle(call.caller, query))).structured as Bundle;
}

/** Validates arguments with the same ajv as a REST body: a bad argument is invalid_request, before anything runs. */
const valid = <T>(schema: TObject, args: unknown): T => validatePart<T>(schema, structuredClone(args ?? {}), 'body');

/** The budget a call names, or the server's. */
const budgetOf = (call: ToolCall, args: { maxTokens?: number }) => args.maxTokens ?? call.defaultMaxTokens;

export const tools: Tool[] = [
  {
    name: 'list_playbooks',
    title: 'List playbooks',
    description: 'The workspace’s playbooks (not archived), one page at a time; filter by version status, function area or owner.',
    input: PlaybooksInput,
    output: budgeted(PlaybookListSchema),
    readOnly: true,
    run: async (s, call, args) => {
      const { cursor, maxTokens, ...query } = valid<PlaybookListQuery & { cursor?: string; maxTokens?: number }>(PlaybooksInput, args);
      return pageWithin('playbooks', { page: query.page, cursor }, budgetOf(call, { maxTokens }), (page) => s.playbooks.list(call.caller, { ...query, page }));
    },
  },
  {
    name: 'get_bundle',
    title: 'Get a playbook bundle',
    description:
      'A playbook with its ranked linked context, for a run: nodes in reading order, each with the reason it is there. ' +
      'The whole result fits in maxTokens (default: the server’s MCP budget): nodes are taken in rank order while they fit; ' +
      'what was left out is counted in omittedCount (the first few in omitted), and cursor continues after the nodes returned. ' +
      'Counts one retrieval against the workspace’s monthly quota.',
    input: BundleInput,
    output: BundleSchema,
    readOnly: true,
    run: (s, call, args) => playbookRetrieval(s, call, BundleInput, args, 'bundle'),
  },
  {
    name: 'get_manifest',
    title: 'Get a playbook manifest',
    description:
      'The same ranking as get_bundle with summaries and token estimates instead of content: what to read, before reading it. ' +
      'Fits in maxTokens like get_bundle. Counts one retrieval against the workspace’s monthly quota.',
    input: ManifestInput,
    output: ManifestSchema,
    readOnly: true,
    run: (s, call, args) => playbookRetrieval(s, call, ManifestInput, args, 'manifest'),
  },
  {
    name: 'get_node',
    title: 'Get a context node',
    description: 'One context node with its content and its links in and out; a content longer than maxTokens allows is cut, and says so at its end.',
    input: NodeInput,
    output: NodeDetailSchema,
    readOnly: true,
    run: async (s, call, args) => {
      const { node, maxTokens } = valid<{ node: string; maxTokens?: number }>(NodeInput, args);
      return entityWithin(await s.nodes.get(call.caller, await s.nodes.idOf(call.caller, node)), budgetOf(call, { maxTokens }));
    },
  },
  {
    name: 'follow_links',
    title: 'Follow links from a context node',
    description: 'The live context nodes linked from (or to) a node, ranked like a bundle, with the path to each; fits in maxTokens like get_bundle.',
    input: FollowInput,
    output: FollowSchema,
    readOnly: true,
    run: async (s, call, args) => {
      const { node, maxTokens, ...query } = valid<{ node: string } & FollowQuery>(FollowInput, args);
      const nodeId = await s.nodes.idOf(call.caller, node);
      return answer(await withShare(budgetOf(call, { maxTokens }), (share) => s.retrieval.follow(call.caller, nodeId, { ...query, maxTokens: share })));
    },
  },
  {
    name: 'search_context',
    title: 'Search context nodes',
    description:
      'Full-text search over the live context nodes’ title, aliases, description, content and agent summary; best match first. ' +
      'The page’s nodes are taken while they fit in maxTokens; a cursor continues with the ones left out.',
    input: SearchInput,
    output: budgeted(NodePageSchema),
    readOnly: true,
    run: async (s, call, args) => {
      const { cursor, maxTokens, ...query } = valid<ListNodesQuery & { q: string; cursor?: string; maxTokens?: number }>(SearchInput, args);
      return pageWithin('nodes', { page: query.page, cursor }, budgetOf(call, { maxTokens }), (page) => s.nodes.list(call.caller, { ...query, page }));
    },
  },
  {
    name: 'get_updates',
    title: 'Context changed since',
    description:
      'Context nodes changed after a moment, oldest first, at most limit of them and as many as fit in maxTokens; ' +
      'ask again with cursor = the returned cursor for the next ones (nodes that share a timestamp are never skipped).',
    input: UpdatesInput,
    output: UpdatesSchema,
    readOnly: true,
    run: async (s, call, args) => {
      const { maxTokens, ...query } = valid<{ since: string; limit: number; cursor?: string; maxTokens?: number }>(UpdatesInput, args);
      return answer(await withShare(budgetOf(call, { maxTokens }), (share) => s.retrieval.changes(call.caller, query, share)));
    },
  },
  {
    name: 'annotate',
    title: 'Annotate',
    description: 'Add a note to a playbook, a playbook version or a context node: for the whole workspace (workspace_overlay) or for this caller only (agent_local).',
    input: AnnotateInput,
    output: AnnotationSchema,
    readOnly: false,
    run: async (s, call, args) => entityWithin(await s.annotations.create(call.caller, valid(AnnotateInput, args)), call.defaultMaxTokens),
  },
  {
    name: 'set_node_names',
    title: 'Set a context node’s aliases and tags',
    description: 'Replace the aliases (other names [[wikilinks]] may call the node by) and/or the tags of a context node; needs the editor role. Wikilinks waiting for a new alias resolve at once.',
    input: NodeNamesInput,
    output: NodeDetailSchema,
    readOnly: false,
    replaces: true,
    run: async (s, call, args) => {
      const { node, maxTokens, ...changes } = valid<{ node: string; aliases?: string[]; tags?: string[]; maxTokens?: number }>(NodeNamesInput, args);
      if (!roleAtLeast(call.caller.role, 'editor')) throw new AppError('insufficient_role', `This needs the editor role or higher; the caller is ${call.caller.role}`);
      return entityWithin(await s.nodes.update(call.caller, await s.nodes.idOf(call.caller, node), changes), budgetOf(call, { maxTokens }));
    },
  },
  {
    name: 'give_feedback',
    title: 'Give feedback',
    description: 'Tell the workspace’s editors that a playbook, a version or a context node is incorrect, outdated, missing context, helpful or low-signal.',
    input: FeedbackInput,
    output: FeedbackSchema,
    readOnly: false,
    run: async (s, call, args) => entityWithin(await s.feedback.create(call.caller, valid(FeedbackInput, args)), call.defaultMaxTokens),
  },
];
