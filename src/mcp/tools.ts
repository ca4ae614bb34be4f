import { type TObject, type TSchema, Type } from '@sinclair/typebox';
import type { AnnotationService } from '../annotations/service.js';
import { AnnotationSchema, CreateBody as AnnotateInput } from '../annotations/schemas.js';
import { type Caller, roleAtLeast } from '../auth/caller.js';
import { AppError } from '../errors.js';
import type { FeedbackService } from '../feedback/service.js';
import { CreateBody as FeedbackInput, FeedbackSchema } from '../feedback/schemas.js';
import type { RequestGate } from '../gate/gate.js';
import { Strict } from '../http/common-schemas.js';
import { meteredAnswer } from '../http/metered-answer.js';
import type { ResponseCache } from '../http/response-cache.js';
import type { AnyRoute } from '../http/route.js';
import { validatePart } from '../http/validation.js';
import { CreateBody as NodeCreateBody, ListQuery as NodeListQuery, NodeDetailSchema, NodePageSchema } from '../nodes/schemas.js';
import type { NodeService } from '../nodes/service.js';
import { ListQuery as PlaybookListQuery, PlaybookListSchema } from '../playbooks/schemas.js';
import type { PlaybookService } from '../playbooks/service.js';
import { retrievalRoutes } from '../retrieval/routes.js';
import { BundleQuery, BundleSchema, FollowQuery, FollowSchema, ManifestQuery, ManifestSchema, UpdatesQuery, UpdatesSchema } from '../retrieval/schemas.js';
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
  /** The budget applied when a retrieval tool's call names none. */
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

const BundleInput = Strict({ playbook: PlaybookRef, ...without(BundleQuery, 'playbookId') }, { required: ['playbook'] });
const ManifestInput = Strict({ playbook: PlaybookRef, ...without(ManifestQuery, 'playbookId') }, { required: ['playbook'] });
const NodeInput = Strict({ node: NodeRef }, { required: ['node'] });
const NodeNamesInput = Strict(
  { node: NodeRef, aliases: NodeCreateBody.properties.aliases, tags: NodeCreateBody.properties.tags },
  { required: ['node'], minProperties: 2 },
);
const FollowInput = Strict({ node: NodeRef, ...FollowQuery.properties }, { required: ['node'] });
const SearchInput = Strict(
  { q: { ...NodeListQuery.properties.q, minLength: 1 }, nodeType: NodeListQuery.properties.nodeType, page: NodeListQuery.properties.page, limit: NodeListQuery.properties.limit },
  { required: ['q'] },
);

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
 * A bundle or manifest, through the answer step its REST route takes (src/http/metered-answer.ts): counted
 * against the quota (one round trip through the gate, the count taken back if the retrieval fails) and answered
 * from the same response cache under the same key (the route's operation and path, the validated arguments as its
 * query), so an MCP and a REST retrieval of the same request share an entry.
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

/** get_bundle: also the bundle of a prompt. */
export async function bundleFor(s: ToolServices, call: ToolCall, args: unknown): Promise<ToolAnswer> {
  const { playbook, ...rest } = valid<{ playbook: string } & Record<string, unknown>>(BundleInput, args);
  const query = { playbookId: await s.playbooks.idOf(call.caller, playbook), ...rest, maxTokens: rest.maxTokens ?? call.defaultMaxTokens } as BundleQuery;
  return retrieval(s, call, BundleQuery, query, () => s.retrieval.bundle(call.caller, query));
}

/** Validates arguments with the same ajv as a REST body: a bad argument is invalid_request, before anything runs. */
const valid = <T>(schema: TObject, args: unknown): T => validatePart<T>(schema, structuredClone(args ?? {}), 'body');

export const tools: Tool[] = [
  {
    name: 'list_playbooks',
    title: 'List playbooks',
    description: 'The workspace’s playbooks (not archived), one page at a time; filter by version status, function area or owner.',
    input: PlaybookListQuery,
    output: PlaybookListSchema,
    readOnly: true,
    run: async (s, { caller }, args) => answer(await s.playbooks.list(caller, valid(PlaybookListQuery, args))),
  },
  {
    name: 'get_bundle',
    title: 'Get a playbook bundle',
    description:
      'A playbook with its ranked linked context, for a run: nodes in reading order, each with the reason it is there. ' +
      'Nodes are taken while they fit in maxTokens (default: the server’s MCP budget); what the budget cut is listed in omitted. ' +
      'Counts one retrieval against the workspace’s monthly quota.',
    input: BundleInput,
    output: BundleSchema,
    readOnly: true,
    run: (s, call, args) => bundleFor(s, call, args),
  },
  {
    name: 'get_manifest',
    title: 'Get a playbook manifest',
    description:
      'The same ranking as get_bundle with summaries and token estimates instead of content: what to read, before reading it. ' +
      'Counts one retrieval against the workspace’s monthly quota.',
    input: ManifestInput,
    output: ManifestSchema,
    readOnly: true,
    run: async (s, call, args) => {
      const { playbook, ...rest } = valid<{ playbook: string } & Record<string, unknown>>(ManifestInput, args);
      const query = { playbookId: await s.playbooks.idOf(call.caller, playbook), ...rest, maxTokens: rest.maxTokens ?? call.defaultMaxTokens } as ManifestQuery;
      return retrieval(s, call, ManifestQuery, query, () => s.retrieval.manifest(call.caller, query));
    },
  },
  {
    name: 'get_node',
    title: 'Get a context node',
    description: 'One context node with its content and its links in and out.',
    input: NodeInput,
    output: NodeDetailSchema,
    readOnly: true,
    run: async (s, { caller }, args) => {
      const { node } = valid<{ node: string }>(NodeInput, args);
      return answer(await s.nodes.get(caller, await s.nodes.idOf(caller, node)));
    },
  },
  {
    name: 'follow_links',
    title: 'Follow links from a context node',
    description: 'The live context nodes linked from (or to) a node, ranked like a bundle, with the path to each.',
    input: FollowInput,
    output: FollowSchema,
    readOnly: true,
    run: async (s, { caller, defaultMaxTokens }, args) => {
      const { node, ...query } = valid<{ node: string } & FollowQuery>(FollowInput, args);
      return answer(await s.retrieval.follow(caller, await s.nodes.idOf(caller, node), { ...query, maxTokens: query.maxTokens ?? defaultMaxTokens }));
    },
  },
  {
    name: 'search_context',
    title: 'Search context nodes',
    description: 'Full-text search over the live context nodes’ title, aliases, description, content and agent summary; best match first.',
    input: SearchInput,
    output: NodePageSchema,
    readOnly: true,
    run: async (s, { caller }, args) => answer(await s.nodes.list(caller, valid(SearchInput, args))),
  },
  {
    name: 'get_updates',
    title: 'Context changed since',
    description: 'Context nodes changed after a moment, oldest first; ask again with since = the returned until for the next changes.',
    input: UpdatesQuery,
    output: UpdatesSchema,
    readOnly: true,
    run: async (s, { caller }, args) => {
      const { since, limit } = valid<{ since: string; limit: number }>(UpdatesQuery, args);
      return answer(await s.retrieval.updates(caller, since, limit));
    },
  },
  {
    name: 'annotate',
    title: 'Annotate',
    description: 'Add a note to a playbook, a playbook version or a context node: for the whole workspace (workspace_overlay) or for this caller only (agent_local).',
    input: AnnotateInput,
    output: AnnotationSchema,
    readOnly: false,
    run: async (s, { caller }, args) => answer(await s.annotations.create(caller, valid(AnnotateInput, args))),
  },
  {
    name: 'set_node_names',
    title: 'Set a context node’s aliases and tags',
    description: 'Replace the aliases (other names [[wikilinks]] may call the node by) and/or the tags of a context node; needs the editor role. Wikilinks waiting for a new alias resolve at once.',
    input: NodeNamesInput,
    output: NodeDetailSchema,
    readOnly: false,
    replaces: true,
    run: async (s, { caller }, args) => {
      const { node, ...changes } = valid<{ node: string; aliases?: string[]; tags?: string[] }>(NodeNamesInput, args);
      if (!roleAtLeast(caller.role, 'editor')) throw new AppError('insufficient_role', `This needs the editor role or higher; the caller is ${caller.role}`);
      return answer(await s.nodes.update(caller, await s.nodes.idOf(caller, node), changes));
    },
  },
  {
    name: 'give_feedback',
    title: 'Give feedback',
    description: 'Tell the workspace’s editors that a playbook, a version or a context node is incorrect, outdated, missing context, helpful or low-signal.',
    input: FeedbackInput,
    output: FeedbackSchema,
    readOnly: false,
    run: async (s, { caller }, args) => answer(await s.feedback.create(caller, valid(FeedbackInput, args))),
  },
];
