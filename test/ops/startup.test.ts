import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../src/config.js';
import { serverNodeFlags } from '../../src/infra/node-flags.js';
import { projectRoot } from '../../src/infra/project-root.js';
import type { RunningService } from '../../src/runtime.js';
import { createWorkspace, problem, request, unique } from '../support/api.js';
import { env, startExtraService } from '../support/harness.js';

const run = promisify(execFile);

describe('configuration', () => {
  it('defaults everything a fresh machine needs', () => {
    const config = loadConfig({});
    expect(config).to.include({ port: 3000, logLevel: 'info', dataDir: 'data' });
    expect(config.neo4j).to.deep.equal({ uri: undefined, username: 'neo4j', password: 'neo4j', database: 'neo4j', readTimeoutMs: 30_000 });
    expect(config.plans).to.deep.equal({ free: 1000, team: 100000, enterprise: 10000000 });
    expect(config.adminToken).to.equal(undefined);
    expect(config.bundleCache.enabled).to.equal(true);
  });

  it('reads the documented variables', () => {
    const config = loadConfig({
      PORT: '8080', NEO4J_URI: 'neo4j://db:7687', NEO4J_USERNAME: 'u', NEO4J_PASSWORD: 'p', NEO4J_DATABASE: 'graph', NEO4J_READ_TIMEOUT_MS: '3000',
      REDIS_URL: 'redis://cache:6379', ADMIN_TOKEN: 'a-long-operator-token', LOG_LEVEL: 'warn',
      PLAN_FREE_MONTHLY_RETRIEVALS: '5', RATE_LIMIT_PER_KEY_PER_MINUTE: '60', BUNDLE_CACHE: 'off',
    });
    expect(config.port).to.equal(8080);
    expect(config.neo4j).to.deep.equal({ uri: 'neo4j://db:7687', username: 'u', password: 'p', database: 'graph', readTimeoutMs: 3000 });
    expect(config).to.include({ redisUrl: 'redis://cache:6379', adminToken: 'a-long-operator-token', logLevel: 'warn', rateLimitPerKeyPerMinute: 60 });
    expect(config.plans.free).to.equal(5);
    expect(config.bundleCache.enabled).to.equal(false);
  });

  it('fails fast with one readable line naming every bad variable', () => {
    expect(() => loadConfig({ PORT: 'eighty', REDIS_URL: 'http://x', LOG_LEVEL: 'loud' }))
      .to.throw(ConfigError)
      .with.property('message')
      .that.matches(/PORT/)
      .and.matches(/REDIS_URL/)
      .and.matches(/LOG_LEVEL/);
    expect(() => loadConfig({ ADMIN_TOKEN: 'short' })).to.throw(ConfigError, /ADMIN_TOKEN/);
  });

  it('seals secrets under SECRETS_KEY, still reads its older name WEBHOOK_SECRETS_KEY, and refuses the two differing', () => {
    const key = 'k'.repeat(40);
    expect(loadConfig({ SECRETS_KEY: key }).secretsKey).to.equal(key);
    expect(loadConfig({ WEBHOOK_SECRETS_KEY: key }).secretsKey).to.equal(key);
    expect(loadConfig({ SECRETS_KEY: key, WEBHOOK_SECRETS_KEY: key }).secretsKey).to.equal(key);
    expect(loadConfig({}).secretsKey).to.equal(undefined);
    expect(() => loadConfig({ SECRETS_KEY: key, WEBHOOK_SECRETS_KEY: 'w'.repeat(40) })).to.throw(ConfigError, /SECRETS_KEY and WEBHOOK_SECRETS_KEY/);
    expect(() => loadConfig({ SECRETS_KEY: 'short' })).to.throw(ConfigError, /SECRETS_KEY/);
  });

  it('reads a Redis Cluster or a Sentinel set-up, and refuses one named twice or half named', () => {
    const cluster = loadConfig({ REDIS_CLUSTER_NODES: 'redis-a:7000, 10.0.0.2:7001,[::1]:7002' });
    expect(cluster.redisCluster).to.deep.equal({ nodes: [{ host: 'redis-a', port: 7000 }, { host: '10.0.0.2', port: 7001 }, { host: '::1', port: 7002 }] });
    expect(cluster.redisUrl).to.equal(undefined);
    const sentinel = loadConfig({ REDIS_SENTINELS: 's1:26379,s2:26379,s3:26379', REDIS_SENTINEL_NAME: 'playbooks' });
    expect(sentinel.redisSentinel).to.deep.equal({ sentinels: [1, 2, 3].map((n) => ({ host: `s${n}`, port: 26379 })), name: 'playbooks' });
    expect(() => loadConfig({ REDIS_CLUSTER_NODES: 'redis-a' })).to.throw(ConfigError, /REDIS_CLUSTER_NODES/);
    expect(() => loadConfig({ REDIS_CLUSTER_NODES: 'a:1', REDIS_URL: 'redis://b:2' })).to.throw(ConfigError, /set one of REDIS_URL, REDIS_CLUSTER_NODES/);
    expect(() => loadConfig({ REDIS_SENTINELS: 's1:26379' })).to.throw(ConfigError, /REDIS_SENTINEL_NAME/);
    expect(() => loadConfig({ REDIS_SENTINEL_NAME: 'playbooks' })).to.throw(ConfigError, /REDIS_SENTINELS/);
  });
});

describe('the CLI', () => {
  it('bootstraps a user, a key and a workspace, and that key reaches the workspace', async () => {
    const email = `${unique('cli')}@example.test`;
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'bootstrap', '--email', email, '--name', 'Cli User', '--workspace', 'From CLI'], {
      env: { ...process.env, NEO4J_URI: env.deps.neo4jUri, ...env.deps.redisEnv, LOG_LEVEL: 'silent' },
    });
    const out = JSON.parse(stdout);
    expect(out.user).to.include({ email, name: 'Cli User' });
    expect(out.key.key).to.match(/^pk_user_/);
    expect(out.workspace).to.include({ name: 'From CLI', plan: 'free' });
    const seen = await request('GET', `/api/v1/workspaces/${out.workspace.id}`, { token: out.key.key });
    expect(seen.status).to.equal(200);
    expect(seen.body.role).to.equal('owner');
  });

  it('says what is wrong, in one line, with exit code 1', async () => {
    const failure = await run(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'create-key'], {
      env: { ...process.env, NEO4J_URI: env.deps.neo4jUri, ...env.deps.redisEnv, LOG_LEVEL: 'silent' },
    }).then(
      () => undefined,
      (err: { code: number; stderr: string }) => err,
    );
    expect(failure?.code).to.equal(1);
    expect(failure?.stderr.trim()).to.equal('--user is required for create-key');
  });
});

/**
 * The limit counts per calendar minute (src/gate/admission.ts): a burst that straddles a minute's end is counted in
 * two windows. A burst that starts in a minute's last seconds waits for the next one.
 */
async function aFreshMinute(): Promise<void> {
  const second = new Date().getUTCSeconds();
  if (second >= 50) await new Promise((resolve) => setTimeout(resolve, (60 - second) * 1000 + 200));
}

describe('per-key rate limit', () => {
  let limited: RunningService;
  before(async () => {
    limited = await startExtraService({ RATE_LIMIT_PER_KEY_PER_MINUTE: '3' });
  });
  after(() => limited.stop());

  it('past the limit a key gets 429 rate_limited with Retry-After; other keys are unaffected', async () => {
    const w = await createWorkspace();
    const other = await createWorkspace();
    const statuses: number[] = [];
    let last;
    await aFreshMinute();
    for (let i = 0; i < 4; i++) {
      last = await request('GET', w.path(), { token: w.owner.key, baseUrl: limited.url });
      statuses.push(last.status);
    }
    expect(statuses).to.deep.equal([200, 200, 200, 429]);
    problem(last!, 429, 'rate_limited');
    expect(Number(last!.headers.get('retry-after'))).to.be.within(1, 60);
    expect((await request('GET', other.path(), { token: other.owner.key, baseUrl: limited.url })).status).to.equal(200);
  });

  it('requests of one key sent together are each counted: exactly the limit of them pass', async () => {
    const w = await createWorkspace();
    await aFreshMinute();
    const answers = await Promise.all(Array.from({ length: 7 }, () => request('GET', w.path(), { token: w.owner.key, baseUrl: limited.url })));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).to.deep.equal([200, 200, 200, 429, 429, 429, 429]);
  });
});

describe('metrics token', () => {
  let guarded: RunningService;
  before(async () => {
    guarded = await startExtraService({ METRICS_TOKEN: 'scrape-me' });
  });
  after(() => guarded.stop());

  it('protects /metrics when set', async () => {
    problem(await request('GET', '/metrics', { baseUrl: guarded.url }), 401);
    const ok = await request('GET', '/metrics', { baseUrl: guarded.url, token: 'scrape-me' });
    expect(ok.status).to.equal(200);
    expect(ok.text).to.include('quota_rejections_total');
  });
});

describe('starting without the tools it needs', () => {
  /** Starts the server with node alone on PATH: no java, no mvn, no redis-server. */
  async function startWithoutTools(extraEnv: NodeJS.ProcessEnv = {}) {
    const { mkdtempSync, symlinkSync } = await import('node:fs');
    const os = await import('node:os');
    const path = await import('node:path');
    const bin = mkdtempSync(path.join(os.tmpdir(), 'only-node-'));
    symlinkSync(process.execPath, path.join(bin, 'node'));
    return run(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      env: { PATH: bin, HOME: process.env.HOME ?? '/tmp', DATA_DIR: bin, LOG_LEVEL: 'silent', PORT: '0', ...extraEnv },
    }).then(
      () => undefined,
      (err: { code: number; stderr: string }) => err,
    );
  }

  it('names the missing tool in one sentence instead of a stack trace', async () => {
    const failure = await startWithoutTools();
    expect(failure?.code).to.equal(1);
    expect(failure?.stderr.trim()).to.equal('Java 17 or newer is needed to run Neo4j: install it (apt-get install -y openjdk-17-jre-headless) or set NEO4J_URI.');
  });

  it('says so when redis-server is missing and Neo4j is given', async () => {
    const failure = await startWithoutTools({ NEO4J_URI: env.deps.neo4jUri });
    expect(failure?.code).to.equal(1);
    expect(failure?.stderr.trim()).to.equal('redis-server is needed: install it (apt-get install -y redis-server) or set REDIS_URL.');
  });
});

describe('the V8 flags of the API process', () => {
  // Node reads them only from its command line: every place that starts the API gives the same ones (the bench
  // imports serverNodeFlags itself).
  const startedWith = (command: string, program: RegExp) => new RegExp(`\\bnode ((?:--\\S+ )*)${program.source}`).exec(command)?.[1].trim().split(' ').filter(Boolean);

  it('are the same for npm start and the Docker image', () => {
    const pkg = JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8'));
    const cmd = /^CMD (\[.*\])$/m.exec(readFileSync(path.join(projectRoot, 'Dockerfile'), 'utf8'))?.[1];
    // npm start's process is the API: scripts/start.mjs imports dist/src/server.js after the build.
    expect(startedWith(pkg.scripts.start, /scripts\/start\.mjs/)).to.deep.equal(serverNodeFlags);
    expect(readFileSync(path.join(projectRoot, 'scripts', 'start.mjs'), 'utf8')).to.match(/await import\(.*'dist', 'src', 'server\.js'/);
    expect(startedWith((JSON.parse(cmd ?? '[]') as string[]).join(' '), /dist\/src\/server\.js/)).to.deep.equal(serverNodeFlags);
  });
});
