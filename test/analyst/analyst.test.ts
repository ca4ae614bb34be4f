import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { parse } from 'csv-parse/sync';
import type { Driver } from 'neo4j-driver';
import { inReadTransaction } from '../../src/analyst/query-worker.js';
import { createAgent } from '../support/agents.js';
import { type Reply, createWorkspace, problem, request } from '../support/api.js';
import { shell } from '../support/cypher-shell.js';
import { adminToken, analystToken, env } from '../support/harness.js';
import { sharedGraph } from '../support/neo4j.js';
import { createNode, link } from '../support/nodes.js';

const cypher = (body: Record<string, unknown>, options: { token?: string; accept?: string } = {}) =>
  request('POST', '/api/v1/admin/cypher', { token: options.token ?? analystToken, body, headers: options.accept ? { accept: options.accept } : {} });

/**
 * Counts read straight from Neo4j (not through the endpoint under test): nodes, relationships, labels, indexes, constraints.
 * Audit events are left out: every query, refused or not, is recorded in the audit log (test/audit/audit.test.ts).
 */
async function graphCounts(driver: Driver) {
  const one = async (q: string) => (await driver.executeQuery(q, {}, { database: env.config.neo4j.database })).records[0].get(0);
  return {
    nodes: await one('MATCH (n) WHERE NOT n:AuditEvent RETURN count(n)'),
    relationships: await one('MATCH ()-[r]->() RETURN count(r)'),
    labels: await one('CALL db.labels() YIELD label RETURN count(label)'),
    indexes: await one('SHOW INDEXES YIELD name RETURN count(name)'),
    constraints: await one('SHOW CONSTRAINTS YIELD name RETURN count(name)'),
  };
}

describe('analyst ad-hoc Cypher (POST /api/v1/admin/cypher)', () => {
  let driver: Driver;
  /** Whether the server runs with the safety settings the launcher gives it (a server of one's own may not). */
  let safetySettings = false;
  before(async () => {
    driver = sharedGraph().driver;
    const settings = await driver.executeQuery(
      "SHOW SETTINGS YIELD name, value WHERE name IN ['dbms.security.allow_csv_import_from_file_urls', 'db.memory.transaction.max'] RETURN name, value",
      {},
      { database: env.config.neo4j.database },
    );
    const value = Object.fromEntries(settings.records.map((r) => [r.get('name'), String(r.get('value'))]));
    safetySettings = value['dbms.security.allow_csv_import_from_file_urls'] === 'false' && !['0', '0B', '0b'].includes(value['db.memory.transaction.max'] ?? '0');
  });

  describe('who may call it', () => {
    it('takes the analyst token and the operator token', async () => {
      for (const token of [analystToken, adminToken]) {
        const res = await cypher({ query: 'RETURN 1 AS one' }, { token });
        expect(res.status, res.text).to.equal(200);
        expect(res.body).to.include({ rowCount: 1, truncated: false });
        expect(res.body.columns).to.deep.equal(['one']);
        expect(res.body.rows).to.deep.equal([[1]]);
      }
    });

    it('answers 401 without a token or with another one, 403 to a user key and to an agent key', async () => {
      const ws = await createWorkspace();
      const agent = await createAgent(ws);
      problem(await cypher({ query: 'RETURN 1' }, { token: '' }), 401, 'unauthorized');
      problem(await request('POST', '/api/v1/admin/cypher', { body: { query: 'RETURN 1' } }), 401, 'unauthorized');
      problem(await cypher({ query: 'RETURN 1' }, { token: 'not-the-analyst-token-at-all' }), 401, 'unauthorized');
      problem(await cypher({ query: 'RETURN 1' }, { token: ws.owner.key }), 403, 'forbidden');
      problem(await cypher({ query: 'RETURN 1' }, { token: agent.key }), 403, 'forbidden');
    });

    it('the analyst token opens nothing else of the admin API', async () => {
      const res = await request('POST', '/api/v1/admin/users', { token: analystToken, body: { email: 'analyst@example.test' } });
      problem(res, 401, 'unauthorized');
    });
  });

  describe('refusals: nothing but reads runs, and nothing changes', () => {
    const refused: [string, string][] = [
      ['CREATE', 'CREATE (n:AnalystProbe {at: 1}) RETURN n'],
      ['MERGE', "MERGE (n:AnalystProbe {key: 'x'}) RETURN n"],
      ['SET', "MATCH (n:ContextNode) WITH n LIMIT 1 SET n.analyst = 'was here' RETURN n"],
      ['REMOVE', 'MATCH (n:ContextNode) WITH n LIMIT 1 REMOVE n.title RETURN n'],
      ['DELETE', 'MATCH (n:ContextNode) WITH n LIMIT 1 DETACH DELETE n'],
      ['a label change', 'MATCH (n:ContextNode) WITH n LIMIT 1 SET n:AnalystProbe RETURN n'],
      ['FOREACH with a write', 'FOREACH (i IN [1] | CREATE (:AnalystProbe))'],
      ['CREATE INDEX', 'CREATE INDEX analyst_probe IF NOT EXISTS FOR (n:AnalystProbe) ON (n.x)'],
      ['DROP CONSTRAINT', 'DROP CONSTRAINT context_node_id'],
      ['CALL {…} IN TRANSACTIONS', 'UNWIND range(1, 3) AS i CALL (i) { CREATE (:AnalystProbe {i: i}) } IN TRANSACTIONS OF 1 ROW'],
      ['read-only CALL {…} IN TRANSACTIONS', 'UNWIND range(1, 3) AS i CALL (i) { RETURN i * 2 AS j } IN TRANSACTIONS RETURN j'],
      ['LOAD CSV of a local file', "LOAD CSV FROM 'file:///etc/passwd' AS row RETURN row"],
      ['LOAD CSV over the network', "LOAD CSV FROM 'http://127.0.0.1:1/x.csv' AS row RETURN row"],
      ['a write procedure', "CALL db.createLabel('AnalystProbe')"],
      ['a procedure not on the allow-list', 'CALL db.info()'],
      ['listing the configuration', 'CALL dbms.listConfig()'],
      ['SHOW TRANSACTIONS', 'SHOW TRANSACTIONS'],
      ['SHOW SETTINGS', 'SHOW SETTINGS'],
      ['SHOW PROCEDURES', 'SHOW PROCEDURES'],
      ['TERMINATE TRANSACTIONS', "TERMINATE TRANSACTIONS 'neo4j-transaction-1'"],
      ['SHOW USERS', 'SHOW USERS'],
      ['CREATE USER', "CREATE USER analyst_probe SET PASSWORD 'secret-secret-1'"],
      ['CREATE DATABASE', 'CREATE DATABASE analystprobe'],
      ['a read that writes in a subquery', 'MATCH (n:ContextNode) WITH n LIMIT 1 CALL (n) { SET n.analyst = 1 } RETURN n.id'],
    ];

    for (const [kind, query] of refused) {
      it(`refuses ${kind} with 403 query_refused and the graph unchanged`, async () => {
        const before = await graphCounts(driver);
        const res = await cypher({ query });
        const body = problem(res, 403, 'query_refused');
        expect(body.detail).to.be.a('string').and.not.empty;
        expect(res.text).not.to.match(/root:x:0:0/);
        expect(await graphCounts(driver)).to.deep.equal(before);
        const probes = await driver.executeQuery('MATCH (n:AnalystProbe) RETURN count(n) AS c', {}, { database: env.config.neo4j.database });
        expect(probes.records[0].get('c')).to.equal(0);
      });
    }

    it('the transaction itself is read-only: a write that got past the checks still fails and changes nothing', async () => {
      const before = await graphCounts(driver);
      let failure: unknown;
      await inReadTransaction(driver, env.config.neo4j.database, { timeoutMs: 5000 }, (tx) => tx.run('CREATE (:AnalystProbe {layer: true})'))
        .catch((err) => (failure = err));
      expect(failure, 'the write in a READ transaction').to.be.instanceOf(Error);
      expect(await graphCounts(driver)).to.deep.equal(before);
    });

    it('the self-started Neo4j refuses LOAD CSV from files even to a caller who bypasses the endpoint', async function () {
      if (!safetySettings) this.skip();
      let failure: unknown;
      await driver
        .executeQuery("LOAD CSV FROM 'file:///etc/passwd' AS row RETURN row LIMIT 1", {}, { database: env.config.neo4j.database })
        .catch((err) => (failure = err));
      expect(String(failure)).to.match(/file/i);
      expect(String(failure)).not.to.match(/root:x:0:0/);
    });

    it('lets the allowed procedures through (schema and full-text search)', async () => {
      const ws = await createWorkspace();
      await createNode(ws, { title: 'Quokka handbook', description: 'all about quokkas' });
      for (const query of [
        'CALL db.labels() YIELD label RETURN label',
        'CALL db.relationshipTypes() YIELD relationshipType RETURN relationshipType',
        'CALL db.propertyKeys() YIELD propertyKey RETURN propertyKey',
        'CALL db.schema.visualization()',
      ]) {
        const res = await cypher({ query });
        expect(res.status, `${query}: ${res.text}`).to.equal(200);
      }
      const search = await cypher({
        query: "CALL db.index.fulltext.queryNodes('context_node_text', 'quokka') YIELD node, score WHERE node.workspaceId = $ws RETURN node.title AS title",
        params: { ws: ws.workspaceId },
      });
      expect(search.status, search.text).to.equal(200);
      expect(search.body.rows).to.deep.equal([['Quokka handbook']]);
    });

    it('lets dbms.components, SHOW INDEXES and SHOW CONSTRAINTS through: they read the schema and change nothing', async () => {
      const before = await graphCounts(driver);
      const components = await cypher({ query: 'CALL dbms.components() YIELD name, edition RETURN name, edition' });
      expect(components.status, components.text).to.equal(200);
      expect(components.body.rows.map((r: unknown[]) => r[0])).to.include('Neo4j Kernel');
      const indexes = await cypher({ query: 'SHOW INDEXES' });
      expect(indexes.status, indexes.text).to.equal(200);
      expect(indexes.body.columns).to.include.members(['name', 'type', 'labelsOrTypes', 'properties']);
      const name = indexes.body.columns.indexOf('name');
      expect(indexes.body.rows.map((r: unknown[]) => r[name])).to.include('context_node_text');
      const constraints = await cypher({ query: "SHOW CONSTRAINTS YIELD name, labelsOrTypes, properties WHERE name = 'user_email' RETURN name, labelsOrTypes, properties" });
      expect(constraints.status, constraints.text).to.equal(200);
      expect(constraints.body.rows).to.deep.equal([['user_email', ['User'], ['email']]]);
      expect(await graphCounts(driver)).to.deep.equal(before);
    });
  });

  describe('errors the analyst can act on', () => {
    it('a syntax error is 400 invalid_cypher with Neo4j’s message and position', async () => {
      const res = await cypher({ query: 'MATCH (n RETURN n' });
      const body = problem(res, 400, 'invalid_cypher') as any;
      expect(body.detail).to.match(/Invalid input|expected/i);
      expect(body.position).to.include.keys('line', 'column', 'offset');
      expect(body.position.line).to.equal(1);
      expect(body.errors[0]).to.include({ path: '/query', in: 'body' });
    });

    it('a syntax error’s position, and Neo4j’s excerpt of its line, are in the text as sent', async () => {
      const one = problem(await cypher({ query: 'MATCH (n RETURN n' }), 400, 'invalid_cypher') as any;
      expect(one.position).to.deep.equal({ line: 1, column: 10, offset: 9 });
      expect(one.detail).to.include('(line 1, column 10 (offset: 9))');
      expect(one.detail).not.to.include('EXPLAIN');
      expect(one.detail.split('\n').slice(1)).to.deep.equal(['"MATCH (n RETURN n"', `${' '.repeat(10)}^`]);
      expect(one.errors[0].message).to.include('(line 1, column 10 (offset: 9))');
      // On a later line the column was right already; the offset was not. A leading line break is kept.
      const query = '\nMATCH (n)\nWHERE n.x = 1\n  RETURN n ORDER BY';
      const later = problem(await cypher({ query }), 400, 'invalid_cypher') as any;
      expect(later.position).to.deep.equal({ line: 4, column: 20, offset: query.length });
      expect(later.detail.split('\n').slice(1)).to.deep.equal(['"  RETURN n ORDER BY"', `${' '.repeat(20)}^`]);
      const semantic = problem(await cypher({ query: 'MATCH (n) RETURN m' }), 400, 'invalid_cypher') as any;
      expect(semantic.position).to.deep.equal({ line: 1, column: 18, offset: 17 });
      const profiled = problem(await cypher({ query: 'PROFILE MATCH (n RETURN n' }), 400, 'invalid_cypher') as any;
      expect(profiled.position).to.deep.equal({ line: 1, column: 18, offset: 17 });
    });

    it('a missing parameter and a semantic error are 400 invalid_cypher', async () => {
      problem(await cypher({ query: 'RETURN $nope AS x' }), 400, 'invalid_cypher');
      problem(await cypher({ query: 'MATCH (n) RETURN m' }), 400, 'invalid_cypher');
    });

    it('a cartesian product that runs past its timeout is 422 query_timeout, in about the timeout', async () => {
      // Enough nodes that the five-fold product cannot finish in a second.
      const ws = await createWorkspace();
      for (let i = 0; i < 12; i++) await createNode(ws);
      const started = Date.now();
      const res = await cypher({ query: 'MATCH (a), (b), (c), (d), (e), (f) RETURN count(a.id + b.id + c.id + d.id + e.id + f.id) AS n', timeoutMs: 1000 });
      problem(res, 422, 'query_timeout');
      expect(Date.now() - started).to.be.below(15_000);
      // The transaction is gone: no analyst transaction is left running.
      const open = await driver.executeQuery("SHOW TRANSACTIONS YIELD metaData WHERE metaData.app = 'playbooks-analyst' RETURN count(*) AS c", {}, { database: env.config.neo4j.database });
      expect(open.records[0].get('c')).to.equal(0);
    });

    it('a read that needs more memory than a transaction may hold is 422 query_memory_exceeded', async function () {
      if (!safetySettings) this.skip();
      this.timeout(60_000);
      const res = await cypher({ query: "UNWIND range(1, 4000000) AS i WITH collect(toString(i) + ' some padding to make each string larger') AS big RETURN size(big) AS n", timeoutMs: 50_000 });
      problem(res, 422, 'query_memory_exceeded');
    });

    it('refuses a limit or a timeout beyond the maximum, and unknown fields', async () => {
      problem(await cypher({ query: 'RETURN 1', limit: 100_001 }), 400, 'invalid_request');
      problem(await cypher({ query: 'RETURN 1', timeoutMs: 60_001 }), 400, 'invalid_request');
      problem(await cypher({ query: 'RETURN 1', database: 'system' }), 400, 'invalid_request');
      problem(await cypher({ query: '' }), 400, 'invalid_request');
    });
  });

  describe('EXPLAIN and PROFILE', () => {
    it('EXPLAIN answers the plan, with the columns and no rows, and runs nothing', async () => {
      const res = await cypher({ query: 'EXPLAIN UNWIND range(1, 5) AS i WITH i WHERE i > 2 RETURN i, i * 2 AS double' });
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.include({ rowCount: 0, truncated: false });
      expect(res.body.columns).to.deep.equal(['i', 'double']);
      expect(res.body.rows).to.deep.equal([]);
      expect(res.body.plan[0]).to.include({ operator: 'ProduceResults', depth: 0, rows: null, dbHits: null });
      expect(res.body.plan.map((op: any) => op.operator)).to.include.members(['Filter', 'Unwind']);
      expect(res.body.plan.every((op: any, i: number) => i === 0 || op.depth >= 1)).to.equal(true);
      const plain = await cypher({ query: 'RETURN 1 AS one' });
      expect(plain.body).not.to.have.property('plan');
    });

    it('EXPLAIN of a query that may not run is refused like the query', async () => {
      const before = await graphCounts(driver);
      problem(await cypher({ query: 'EXPLAIN CREATE (n:AnalystProbe) RETURN n' }), 403, 'query_refused');
      problem(await cypher({ query: '// why\nexplain SHOW TRANSACTIONS' }), 403, 'query_refused');
      problem(await cypher({ query: 'PROFILE MATCH (n:ContextNode) WITH n LIMIT 1 SET n.analyst = 1 RETURN n' }), 403, 'query_refused');
      expect(await graphCounts(driver)).to.deep.equal(before);
    });

    it('PROFILE answers the rows and the profile of the whole run, in a read transaction', async () => {
      const res = await cypher({ query: 'PROFILE UNWIND range(1, 10) AS i RETURN i', limit: 3 });
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.include({ rowCount: 3, truncated: true, truncatedBy: 'rows' });
      expect(res.body.rows).to.deep.equal([[1], [2], [3]]);
      // The query ran to its end for its profile, though the answer stops at the limit.
      expect(res.body.plan[0]).to.include({ operator: 'ProduceResults', rows: 10 });
      expect(res.body.plan.every((op: any) => Number.isInteger(op.dbHits))).to.equal(true);
      const ws = await createWorkspace();
      await createNode(ws, { title: 'Profiled' });
      const hits = await cypher({ query: 'CYPHER 5 PROFILE MATCH (n:ContextNode {workspaceId: $ws}) RETURN n.title AS title', params: { ws: ws.workspaceId } });
      expect(hits.status, hits.text).to.equal(200);
      expect(hits.body.rows).to.deep.equal([['Profiled']]);
      expect(hits.body.plan.reduce((sum: number, op: any) => sum + op.dbHits, 0)).to.be.above(0);
    });

    it('the plan comes on the last line of an NDJSON answer', async () => {
      const res = await cypher({ query: 'PROFILE UNWIND range(1, 3) AS i RETURN i' }, { accept: 'application/x-ndjson' });
      const lines = res.text.trimEnd().split('\n').map((l) => JSON.parse(l));
      expect(lines.slice(0, 4)).to.deep.equal([{ columns: ['i'] }, [1], [2], [3]]);
      expect(lines[4]).to.include({ rowCount: 3, truncated: false });
      expect(lines[4].plan[0]).to.include({ operator: 'ProduceResults', rows: 3 });
      const explained = await cypher({ query: 'EXPLAIN RETURN 1 AS one' }, { accept: 'application/x-ndjson' });
      const [columns, summary] = explained.text.trimEnd().split('\n').map((l) => JSON.parse(l));
      expect(columns).to.deep.equal({ columns: ['one'] });
      expect(summary.plan[0].operator).to.equal('ProduceResults');
    });

    it('EXPLAIN and PROFILE together, or twice, are 400 invalid_cypher saying where they go', async () => {
      for (const query of ['EXPLAIN PROFILE RETURN 1', 'PROFILE CYPHER 5 EXPLAIN RETURN 1']) {
        const body = problem(await cypher({ query }), 400, 'invalid_cypher');
        expect(body.detail).to.match(/EXPLAIN or PROFILE may come once, at the start of the statement/);
      }
    });
  });

  describe('rows, limits and formats', () => {
    it('cuts the rows at the default limit of 1,000 and says so', async () => {
      const res = await cypher({ query: 'UNWIND range(1, 2500) AS i RETURN i' });
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.include({ rowCount: 1000, truncated: true, truncatedBy: 'rows', limit: 1000 });
      expect(res.body.rows[999]).to.deep.equal([1000]);
    });

    it('cuts at a given limit, and an answer that ends at the limit is not truncated', async function () {
      this.timeout(90_000);
      const cut = await cypher({ query: 'UNWIND range(1, 10) AS i RETURN i', limit: 3 });
      expect(cut.body).to.include({ rowCount: 3, truncated: true });
      expect(cut.body.rows).to.deep.equal([[1], [2], [3]]);
      const exact = await cypher({ query: 'UNWIND range(1, 3) AS i RETURN i', limit: 3 });
      expect(exact.body).to.include({ rowCount: 3, truncated: false });
      // A hundred thousand rows are counted, not timed: on a loaded machine they took longer than the default 10 s.
      const large = await cypher({ query: 'UNWIND range(1, 100000) AS i RETURN i', limit: 100_000, timeoutMs: 60_000 });
      expect(large.status, large.text.slice(0, 300)).to.equal(200);
      expect(large.body).to.include({ rowCount: 100_000, truncated: false });
    });

    it('takes parameters, whole numbers as integers, and a trailing semicolon', async () => {
      const res = await cypher({ query: 'UNWIND range(1, 10) AS i WITH i WHERE i > $min RETURN i, $name AS name LIMIT $n;', params: { min: 7, n: 2, name: 'x' } });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.rows).to.deep.equal([[8, 'x'], [9, 'x']]);
    });

    it('answers CSV to Accept: text/csv, with the row count and truncation in headers', async () => {
      const res = await cypher({ query: "UNWIND range(1, 5) AS i RETURN i, 'a,\"b\"' AS text, [i, 'x'] AS list, null AS nothing", limit: 4 }, { accept: 'text/csv' });
      expect(res.status, res.text).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/csv/);
      expect(res.headers.get('x-row-count')).to.equal('4');
      expect(res.headers.get('x-truncated')).to.equal('true');
      expect(res.headers.get('x-truncated-by')).to.equal('rows');
      const rows = parse(res.text) as string[][];
      expect(rows[0]).to.deep.equal(['i', 'text', 'list', 'nothing']);
      expect(rows.slice(1)).to.have.length(4);
      expect(rows[1]).to.deep.equal(['1', 'a,"b"', '[1,"x"]', '']);
    });

    it('streams NDJSON: the columns, one array per row, then the summary', async () => {
      const res = await cypher({ query: 'UNWIND range(1, 2500) AS i RETURN i, i * 2 AS double', limit: 2000 }, { accept: 'application/x-ndjson' });
      expect(res.status, res.text).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^application\/x-ndjson/);
      const lines = res.text.trimEnd().split('\n').map((l) => JSON.parse(l));
      expect(lines[0]).to.deep.equal({ columns: ['i', 'double'] });
      expect(lines[1]).to.deep.equal([1, 2]);
      expect(lines).to.have.length(2002);
      expect(lines[2001]).to.include({ rowCount: 2000, truncated: true, truncatedBy: 'rows', limit: 2000 });
    });

    it('a refused query asked for as NDJSON is still a problem with its status', async () => {
      const res = await cypher({ query: 'CREATE (n:AnalystProbe) RETURN n' }, { accept: 'application/x-ndjson' });
      problem(res, 403, 'query_refused');
    });

    it('the shell runs -e and -f statements over HTTP, with parameters and each format', async () => {
      const csv = await shell(['-e', 'UNWIND range(1, 3) AS i RETURN i, $p AS p;', '--param', 'p=7', '--format', 'csv']);
      expect(csv.code, csv.stderr).to.equal(0);
      expect(csv.stdout.trim().split(/\r?\n/)).to.deep.equal(['i,p', '1,7', '2,7', '3,7']);
      const dir = mkdtempSync(path.join(os.tmpdir(), 'cypher-file-'));
      const file = path.join(dir, 'q.cypher');
      writeFileSync(file, "// two statements\nRETURN 'a' AS x;\nRETURN 2 AS y,\n  3 AS z;\n");
      const table = await shell(['-f', file]);
      rmSync(dir, { recursive: true, force: true });
      expect(table.code, table.stderr).to.equal(0);
      expect(table.stdout).to.match(/^x\s*\n-+\na\s*\n\(1 row, \d+ ms\)/m);
      expect(table.stdout).to.match(/y \| z\n-+-\+-+\n2 \| 3/);
      const json = await shell(['-e', 'RETURN 1 AS one', '--format', 'json']);
      expect(JSON.parse(json.stdout)).to.include({ rowCount: 1, truncated: false });
      const refused = await shell(['-e', 'CREATE (n:AnalystProbe)']);
      expect(refused.code).to.equal(1);
      expect(refused.stderr).to.match(/^query_refused: /);
    });

    it('the shell says why an answer was cut: in the table’s footer, and on stderr beside CSV', async () => {
      const big = "UNWIND [1, 2] AS i RETURN i, CASE i WHEN 1 THEN 'small' ELSE reduce(s = '', x IN range(1, 17) | s + s + 'xxxxxxxxxx') END AS big;";
      const table = await shell(['-e', big]);
      expect(table.code, table.stderr).to.equal(0);
      expect(table.stdout).to.match(/\(1 row, cut at the size bound: a value or the answer was too large, \d+ ms\)/);
      const limited = await shell(['-e', 'UNWIND range(1, 5) AS i RETURN i;', '--limit', '2']);
      expect(limited.stdout).to.match(/\(2 rows, cut at the limit of 2, \d+ ms\)/);
      const csv = await shell(['-e', big, '--format', 'csv']);
      expect(csv.code, csv.stderr).to.equal(0);
      expect(csv.stdout.trim().split(/\r?\n/)).to.deep.equal(['i,big', '1,small']);
      expect(csv.stderr.trim()).to.equal('(1 row, cut at the size bound: a value or the answer was too large)');
    });

    it('the interactive shell reads a statement over several lines until ";" and takes :param', async () => {
      const out = await shell([], ':param n=5\nUNWIND range(1, $n) AS i\nRETURN count(i)\n  AS c;\nMATCH (n RETURN n;\n:exit\n');
      expect(out.code, out.stderr).to.equal(0);
      expect(out.stdout).to.match(/c\s*\n-+\n5\s*\n\(1 row/);
      expect(out.stdout).to.match(/invalid_cypher: [\s\S]*\n  MATCH \(n RETURN n\n {2}\s*\^/);
    });

    it('maps Neo4j values to JSON: nodes, relationships, paths, temporal values, big integers, points', async () => {
      const ws = await createWorkspace();
      const a = await createNode(ws, { title: 'Alpha', importance: 70 });
      const b = await createNode(ws, { title: 'Beta' });
      const l = await link(ws, a.id, b.id, 'requires');
      const res = await cypher({
        query: `MATCH p = (a:ContextNode {id: $a})-[r:REQUIRES]->(b:ContextNode)
                RETURN a, r, p, date('2026-01-02') AS d, datetime('2026-01-02T03:04:05.678Z') AS dt,
                       localdatetime('2026-01-02T03:04:05') AS ldt, duration('P1DT2H') AS dur,
                       9007199254740993 AS big, 42 AS small, 1.5 AS f, [1, 'x', null] AS list, {k: 1, m: {n: true}} AS map,
                       point({x: 1.5, y: 2.5}) AS pt, null AS nothing`,
        params: { a: a.id },
      });
      expect(res.status, res.text).to.equal(200);
      const row = Object.fromEntries(res.body.columns.map((c: string, i: number) => [c, res.body.rows[0][i]]));
      expect(row.a.labels).to.deep.equal(['ContextNode']);
      expect(row.a.elementId).to.be.a('string');
      expect(row.a.properties).to.include({ id: a.id, title: 'Alpha', importance: 70, workspaceId: ws.workspaceId });
      expect(row.r).to.include({ type: 'REQUIRES', startElementId: row.a.elementId });
      expect(row.r.properties).to.include({ id: l.id, origin: 'manual' });
      expect(row.p.nodes.map((n: any) => n.properties.id)).to.deep.equal([a.id, b.id]);
      expect(row.p.relationships.map((x: any) => x.type)).to.deep.equal(['REQUIRES']);
      expect(row.r.endElementId).to.equal(row.p.nodes[1].elementId);
      expect(row.d).to.equal('2026-01-02');
      expect(row.dt).to.equal('2026-01-02T03:04:05.678000000Z');
      expect(row.ldt).to.equal('2026-01-02T03:04:05');
      expect(row.dur).to.equal('P1DT2H');
      expect(row.big).to.equal('9007199254740993');
      expect(row.small).to.equal(42);
      expect(row.f).to.equal(1.5);
      expect(row.list).to.deep.equal([1, 'x', null]);
      expect(row.map).to.deep.equal({ k: 1, m: { n: true } });
      expect(row.pt).to.deep.equal({ srid: 7203, x: 1.5, y: 2.5 });
      expect(row.nothing).to.equal(null);
    });
  });
});
