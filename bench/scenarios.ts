/**
 * Every scenario the bench can measure: what is measured, against which process, with which requests, and
 * why it is there. The default run measures only the group `targets`: the scenarios the targets (targets.ts)
 * name, the baselines they are divided by, and the A/A control that says how precisely such a ratio can be read.
 */

/** The process a scenario's load goes to. `driver` is no process: neo4j-driver straight from the bench. */
export type Server =
  | 'driver'
  | 'api-cache-off'
  | 'api-cache-on'
  | 'bare-koa-constant'
  | 'bare-koa-constant-2'
  | 'bare-koa-bytes'
  | 'bare-koa-redis'
  | 'bare-koa-redis-bytes';

/** The request list a scenario rotates over (workspaces.ts builds them). */
export type RequestList = 'bundle' | 'bundle-no-annotations' | 'bundle-if-none-match' | 'manifest' | 'follow' | 'playbook' | 'mcp-bundle' | 'root';

/**
 * targets: what the default run measures. figures: what the issue asks to see without setting a target.
 * diagnostics: what helped explain a gap; kept so the explanation can be checked again.
 */
export type Group = 'targets' | 'figures' | 'diagnostics';

export interface ScenarioDef {
  label: string;
  group: Group;
  server: Server;
  requests: RequestList;
  /** Measured at this client count only, whatever --clients says. */
  onlyAtClients?: number;
  /** The answer every request should get; anything else is flagged in the tables. */
  expect: '200' | '304' | 'ok';
  why: string;
}

/** The client count of the 304 target and of the runs that are compared with it. */
export const CLIENTS_304 = 16;

export const SCENARIOS = {
  'raw-driver': {
    label: 'raw driver (rank-bundle.cypher)',
    group: 'targets',
    server: 'driver',
    requests: 'bundle',
    expect: 'ok',
    why: "the floor: the bundle's own Cypher through neo4j-driver, as the service sends it",
  },
  'bundle-uncached': {
    label: 'bundle uncached (cache off)',
    group: 'targets',
    server: 'api-cache-off',
    requests: 'bundle',
    expect: '200',
    why: 'every bundle runs its Cypher: compared with the raw driver, and across sizes',
  },
  'bundle-repeated': {
    label: 'bundle repeated (cache on)',
    group: 'targets',
    server: 'api-cache-on',
    requests: 'bundle',
    expect: '200',
    why: 'graph unchanged: answered from the bundle cache, compared with bare Koa sending the same bytes',
  },
  'bundle-304': {
    label: 'bundle If-None-Match → 304',
    group: 'targets',
    server: 'api-cache-on',
    requests: 'bundle-if-none-match',
    onlyAtClients: CLIENTS_304,
    expect: '304',
    why: 'an agent that holds the current bundle: compared with bare Koa sending a small constant',
  },
  'cheap-read': {
    label: 'cheap read (GET playbook)',
    group: 'targets',
    server: 'api-cache-on',
    requests: 'playbook',
    expect: '200',
    why: 'an authenticated cheap read: compared with bare Koa sending a small constant',
  },
  'bare-koa-bytes': {
    label: 'bare Koa, same bytes',
    group: 'targets',
    server: 'bare-koa-bytes',
    requests: 'bundle',
    expect: '200',
    why: 'baseline: the URLs of the repeated bundle answered with the bytes the service sent for them',
  },
  'bare-koa-constant': {
    label: 'bare Koa, small constant',
    group: 'targets',
    server: 'bare-koa-constant',
    requests: 'root',
    expect: '200',
    why: 'baseline: the cheapest answer a Koa process can give',
  },
  'bare-koa-constant-2': {
    label: 'A/A: bare Koa constant, 2nd proc.',
    group: 'targets',
    server: 'bare-koa-constant-2',
    requests: 'root',
    onlyAtClients: CLIENTS_304,
    expect: '200',
    why: 'A/A control: a second identical process; its ratio to the first is the noise any ratio between two processes carries',
  },
  'manifest-uncached': {
    label: 'manifest uncached (cache off)',
    group: 'figures',
    server: 'api-cache-off',
    requests: 'manifest',
    expect: '200',
    why: 'the manifest runs the same ranking as the bundle without the contents',
  },
  'manifest-repeated': {
    label: 'manifest repeated (cache on)',
    group: 'figures',
    server: 'api-cache-on',
    requests: 'manifest',
    expect: '200',
    why: 'the manifest from the cache',
  },
  'mcp-bundle-repeated': {
    label: 'MCP get_bundle (cache on)',
    group: 'figures',
    server: 'api-cache-on',
    requests: 'mcp-bundle',
    expect: '200',
    why: 'the repeated bundle as an agent asks for it over MCP (Streamable HTTP, a server per request): beside the REST one; the default run measures it too',
  },
  'follow-d3': {
    label: 'follow depth 3',
    group: 'figures',
    server: 'api-cache-on',
    requests: 'follow',
    expect: '200',
    why: 'following links three steps from a node',
  },
  'bare-koa-redis': {
    label: 'bare Koa + Redis MGET',
    group: 'diagnostics',
    server: 'bare-koa-redis',
    requests: 'root',
    onlyAtClients: CLIENTS_304,
    expect: '200',
    why: 'the constant after the one Redis round trip every request of the service makes: the ceiling of a service doing only that',
  },
  'bare-koa-redis-bytes': {
    label: 'bare Koa + Redis, same bytes',
    group: 'diagnostics',
    server: 'bare-koa-redis-bytes',
    requests: 'bundle',
    onlyAtClients: CLIENTS_304,
    expect: '200',
    why: 'the same bytes after that round trip: the ceiling of the repeated bundle',
  },
  'bundle-uncached-noann': {
    label: 'bundle uncached, no annotations',
    group: 'diagnostics',
    server: 'api-cache-off',
    requests: 'bundle-no-annotations',
    expect: '200',
    why: "what reading the caller's annotations adds to an uncached bundle",
  },
} as const satisfies Record<string, ScenarioDef>;

export type Scenario = keyof typeof SCENARIOS;
export const SCENARIO_NAMES = Object.keys(SCENARIOS) as Scenario[];
export const GROUPS: Group[] = ['targets', 'figures', 'diagnostics'];
/** What a run without --scenarios measures: the targets, and the MCP bundle that issue 29 asks to see beside REST. */
export const DEFAULT_SCENARIOS = 'targets,mcp-bundle-repeated';

export const def = (s: Scenario): ScenarioDef => SCENARIOS[s];
export const label = (s: Scenario): string => SCENARIOS[s].label;

/** Scenario names from a list of names and group names (`targets`, `figures`, `diagnostics`, `all`). */
export function resolveScenarios(items: string[]): Scenario[] {
  const chosen = new Set<Scenario>();
  for (const item of items) {
    if (item === 'all') SCENARIO_NAMES.forEach((s) => chosen.add(s));
    else if ((GROUPS as string[]).includes(item)) SCENARIO_NAMES.filter((s) => def(s).group === item).forEach((s) => chosen.add(s));
    else if (item in SCENARIOS) chosen.add(item as Scenario);
    else throw new Error(`unknown scenario or group '${item}'; groups: ${GROUPS.join(', ')}, all; scenarios: ${SCENARIO_NAMES.join(', ')}`);
  }
  // Catalogue order, so that tables and rounds keep one order whatever the command line's.
  return SCENARIO_NAMES.filter((s) => chosen.has(s));
}

/** Whether a scenario is measured at this client count. */
export const runsAt = (s: Scenario, clients: number): boolean => {
  const only = def(s).onlyAtClients;
  return only === undefined || only === clients;
};
