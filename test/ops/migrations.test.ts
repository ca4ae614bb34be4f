import { expect } from 'chai';
import { QueryCatalog } from '../../src/infra/cypher-files.js';
import { loadMigrations, migrate } from '../../src/infra/migrations.js';
import { GraphExecutor } from '../../src/infra/neo4j.js';
import { createDriver } from '../../src/infra/neo4j-driver.js';
import { env } from '../support/harness.js';

describe('schema migrations', () => {
  let graph: GraphExecutor;
  before(() => {
    graph = new GraphExecutor(createDriver({ ...env.config.neo4j, uri: env.deps.neo4jUri }), 'neo4j', new QueryCatalog());
  });
  after(() => graph.driver.close());

  it('are recorded once each, in order, and applying them again changes nothing', async () => {
    const files = loadMigrations();
    expect(files.map((m) => m.version)).to.deep.equal([...files.map((m) => m.version)].sort((a, b) => a - b));
    expect(await migrate(graph)).to.deep.equal([]);
    const rows = await graph.runMigrationStatement('MATCH (m:__Migration) RETURN m.version AS v, m.checksum AS c ORDER BY v');
    expect(rows.map((r) => r.v)).to.deep.equal(files.map((m) => m.version));
    expect(rows.map((r) => r.c)).to.deep.equal(files.map((m) => m.checksum));
  });

  it('two processes migrating at once both succeed', async () => {
    // A fresh marker makes both runs apply a migration for real.
    const version = 900 + Math.floor(Math.random() * 90);
    const extra = { version, description: 'test concurrent', checksum: `c${version}`, statements: [`CREATE INDEX test_concurrent_${version} IF NOT EXISTS FOR (t:TestConcurrent) ON (t.v${version})`] };
    const all = [...loadMigrations(), extra];
    try {
      const results = await Promise.allSettled([migrate(graph, all), migrate(graph, all)]);
      expect(results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason))).to.deep.equal([]);
      const rows = await graph.runMigrationStatement('MATCH (m:__Migration {version: $version}) RETURN count(m) AS n', { version });
      expect(rows[0].n).to.equal(1);
    } finally {
      await graph.runMigrationStatement(`DROP INDEX test_concurrent_${version} IF EXISTS`);
      await graph.runMigrationStatement('MATCH (m:__Migration {version: $version}) DELETE m', { version });
    }
  });

  it('refuses to run when an applied migration was edited', async () => {
    const edited = loadMigrations().map((m, i) => (i === 0 ? { ...m, checksum: 'edited' } : m));
    let failure: unknown;
    await migrate(graph, edited).catch((err) => (failure = err));
    expect(String(failure)).to.match(/edited after it was applied/);
  });

  it('every Cypher statement in cypher/queries is scoped by workspace or says why not', () => {
    const catalog = new QueryCatalog();
    // Users, keys and migrations are global: they belong to no workspace; so are the gate's owed signals, delivered for all.
    const global = /^(admin|auth|gate|migrations)\//;
    // Elsewhere a statement that spans workspaces says so, and why, in a comment: `// Spans workspaces: <why>`.
    const saysWhy = /^\/\/ Spans workspaces: \S/m;
    const unscoped = catalog
      .names()
      .filter((name) => !global.test(name) && !/workspaceId/.test(catalog.get(name)) && !saysWhy.test(catalog.get(name)));
    expect(unscoped).to.deep.equal([]);
  });

  // The same statements must run on 5.26 LTS and on the calendar releases (Cypher 25 by default there): each is
  // parsed and planned here, whether or not a test of this run sends it (EXPLAIN needs no parameter values).
  it('every statement under cypher/ (queries and saved reports) is planned by this Neo4j', async () => {
    const catalog = new QueryCatalog();
    const refused: string[] = [];
    for (const name of catalog.names()) {
      try {
        await graph.runMigrationStatement(`EXPLAIN ${catalog.toSend(name)}`);
      } catch (err) {
        refused.push(`${name}: ${(err as Error).message.split('\n')[0]}`);
      }
    }
    expect(refused).to.deep.equal([]);
  });
});
