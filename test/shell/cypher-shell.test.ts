import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { parse } from 'csv-parse/sync';
import { projectRoot } from '../../src/infra/project-root.js';
import { createWorkspace, request } from '../support/api.js';
import { shell } from '../support/cypher-shell.js';
import { env } from '../support/harness.js';
import { createNode, link } from '../support/nodes.js';

const run = promisify(execFile);
const serviceVersion = JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')).version as string;

/** A script in a file of its own, for `-f`. */
function scriptFile(text: string): { file: string; remove: () => void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cypher-script-'));
  const file = path.join(dir, 'script.cypher');
  writeFileSync(file, text);
  return { file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The column of the caret on the line after `line` in `text` (both as printed), or -1. */
function caretUnder(text: string, line: string): number {
  const lines = text.split('\n');
  const at = lines.indexOf(line);
  return at < 0 ? -1 : (lines[at + 1] ?? '').indexOf('^');
}

const three = `// Three statements, with comments and blank lines between them
RETURN 1 AS one;

RETURN 'two' AS two,
  2 AS n;
// the last
UNWIND [1, 2] AS i RETURN i;
`;

describe('the Cypher shell (npm run cypher, playbooks-cypher)', () => {
  describe('errors where the analyst typed them', () => {
    it('a syntax error at a known position puts the caret under the token Neo4j names', async () => {
      const out = await shell(['-e', 'MATCH (n RETURN n']);
      expect(out.code).to.equal(1);
      expect(out.stderr).to.match(/^invalid_cypher: Invalid input 'RETURN'.*\(line 1, column 10 \(offset: 9\)\)\n/);
      expect(out.stderr).not.to.include('EXPLAIN');
      // One excerpt (the shell's), with the caret under RETURN.
      expect(out.stderr.match(/\^/g)).to.have.length(1);
      expect(caretUnder(out.stderr, '  MATCH (n RETURN n')).to.equal('  MATCH (n '.length);
    });

    it('on a later line of a statement, and in a statement of a file, the caret is under the token too', async () => {
      const { file, remove } = scriptFile('RETURN 1 AS fine;\nMATCH (n)\nWHERE n.x = 1\n  RETRUN n;\nRETURN 3 AS after;\n');
      try {
        const out = await shell(['-f', file]);
        expect(out.code).to.equal(1);
        expect(out.stderr).to.include('-- statement 2 (line 2): MATCH (n) …\ninvalid_cypher: ');
        expect(out.stderr).to.match(/\(line 3, column 3 \(offset: 26\)\)/);
        expect(caretUnder(out.stderr, '    RETRUN n')).to.equal('    '.length);
        // The statements before and after it are answered.
        expect(out.stdout).to.include('-- statement 1 (line 1): RETURN 1 AS fine\nfine');
        expect(out.stdout).to.include('-- statement 3 (line 5): RETURN 3 AS after\nafter');
      } finally {
        remove();
      }
    });
  });

  describe('-f with several statements: each answer labelled', () => {
    let file: string;
    let remove: () => void;
    before(() => ({ file, remove } = scriptFile(three)));
    after(() => remove());

    it('as a table: a line naming the statement and its line before each answer', async () => {
      const out = await shell(['-f', file]);
      expect(out.code, out.stderr).to.equal(0);
      const labels = out.stdout.split('\n').filter((l) => l.startsWith('-- statement'));
      expect(labels).to.deep.equal([
        '-- statement 1 (line 2): RETURN 1 AS one',
        "-- statement 2 (line 4): RETURN 'two' AS two, …",
        '-- statement 3 (line 7): UNWIND [1, 2] AS i RETURN i',
      ]);
      expect(out.stdout).to.match(/-- statement 1 \(line 2\): RETURN 1 AS one\none\s*\n-+\n1\s*\n\(1 row, \d+ ms\)\n/);
      expect(out.stdout).to.match(/-- statement 2 \(line 4\): .*\ntwo \| n\n-+-\+-+\ntwo \| 2\n\(1 row, \d+ ms\)\n/);
      expect(out.stdout).to.match(/-- statement 3 \(line 7\): .*\ni\n-+\n1\n2\n\(2 rows, \d+ ms\)\n/);
    });

    it('as CSV: stdout is CSV, the answers separated by an empty line, each label on stderr', async () => {
      const out = await shell(['-f', file, '--format', 'csv']);
      expect(out.code, out.stderr).to.equal(0);
      expect(out.stderr.split('\n').filter(Boolean)).to.deep.equal([
        '-- statement 1 (line 2): RETURN 1 AS one',
        "-- statement 2 (line 4): RETURN 'two' AS two, …",
        '-- statement 3 (line 7): UNWIND [1, 2] AS i RETURN i',
      ]);
      expect(out.stdout).not.to.include('--');
      const answers = out.stdout.split('\r\n\r\n').map((csv) => parse(csv));
      expect(answers).to.deep.equal([[['one'], ['1']], [['two', 'n'], ['two', '2']], [['i'], ['1'], ['2']]]);
      // Read whole, it is CSV too: the records one after another.
      expect(parse(out.stdout, { relax_column_count: true, skip_empty_lines: true })).to.deep.equal(answers.flat());
    });

    it('as JSON: one document, an array of the answers, each with a "statement" saying which', async () => {
      const out = await shell(['-f', file, '--format', 'json']);
      expect(out.code, out.stderr).to.equal(0);
      const answers = JSON.parse(out.stdout);
      expect(answers).to.be.an('array');
      expect(answers.map((a: { statement: unknown }) => a.statement)).to.deep.equal([
        { number: 1, line: 2, text: 'RETURN 1 AS one' },
        { number: 2, line: 4, text: "RETURN 'two' AS two,\n  2 AS n" },
        { number: 3, line: 7, text: 'UNWIND [1, 2] AS i RETURN i' },
      ]);
      expect(answers.map((a: { rows: unknown }) => a.rows)).to.deep.equal([[[1]], [['two', 2]], [[1], [2]]]);
    });

    it('as JSON with a statement that fails: the array holds the others, stderr names the failed one, exit code 1', async () => {
      const out = await shell(['-e', 'RETURN 1 AS one;\nMATCH (n RETURN n;\nRETURN 3 AS three;', '--format', 'json']);
      expect(out.code).to.equal(1);
      expect(JSON.parse(out.stdout).map((a: { statement: { number: number } }) => a.statement.number)).to.deep.equal([1, 3]);
      expect(out.stderr).to.match(/^-- statement 2 \(line 2\): MATCH \(n RETURN n\ninvalid_cypher: /);
    });

    it('one statement is answered without a label, as before', async () => {
      const out = await shell(['-e', 'RETURN 1 AS one;', '--format', 'csv']);
      expect(out.stdout.trim().split(/\r?\n/)).to.deep.equal(['one', '1']);
    });
  });

  it('piped into a reader that stops early (head), ends quietly with exit code 0', async () => {
    // Far more than a pipe holds, so that the shell is still writing when head has gone.
    const query = `UNWIND range(1, 900) AS i RETURN i, '${'x'.repeat(500)}' AS pad`;
    const out = await shell(['-e', query, '--format', 'csv'], undefined, [
      'sh', '-c', '{ "$0" --import tsx src/cypher-shell.ts "$@"; echo "exit code $?" >&2; } | head -n 2', process.execPath,
    ]);
    expect(out.stdout.split(/\r?\n/).slice(0, 2)).to.deep.equal(['i,pad', `1,${'x'.repeat(500)}`]);
    expect(out.stderr).to.equal('exit code 0\n');
  });

  describe(':schema and the plan', () => {
    it(':schema prints the labels, relationship types, property keys, indexes and constraints', async () => {
      const ws = await createWorkspace();
      const a = await createNode(ws, { title: 'Schema A' });
      const b = await createNode(ws, { title: 'Schema B' });
      await link(ws, a.id, b.id, 'requires');
      const out = await shell([], ':schema\n:exit\n');
      expect(out.code, out.stderr).to.equal(0);
      // After the prompt, which the shell writes to stdout as well.
      expect(out.stdout).to.match(/^cypher> Labels \(\d+\): .*\bContextNode\b/m);
      expect(out.stdout).to.match(/^Relationship types \(\d+\): .*\bREQUIRES\b/m);
      expect(out.stdout).to.match(/^Property keys \(\d+\): .*\bworkspaceId\b/m);
      expect(out.stdout).to.match(/^Indexes \(\d+\):\nname +\| type +\| entityType +\| labelsOrTypes +\| properties +\| state/m);
      expect(out.stdout).to.match(/^context_node_text +\| FULLTEXT +\| NODE/m);
      expect(out.stdout).to.match(/^Constraints \(\d+\):\nname +\| type +\| entityType +\| labelsOrTypes +\| properties/m);
      // Neo4j 5.26 calls it UNIQUENESS; the calendar releases NODE_PROPERTY_UNIQUENESS.
      expect(out.stdout, out.stdout).to.match(/^user_email +\| (NODE_PROPERTY_)?UNIQUENESS +\| NODE +\| \["User"\] +\| \["email"\]/m);
      expect(out.stdout).not.to.match(/query_refused|invalid_cypher/);
    });

    it('PROFILE prints the rows, then the profile; EXPLAIN the plan alone', async () => {
      const profiled = await shell(['-e', 'PROFILE UNWIND range(1, 3) AS i RETURN i']);
      expect(profiled.code, profiled.stderr).to.equal(0);
      expect(profiled.stdout).to.match(/^i\n-+\n1\n2\n3\n\(3 rows, \d+ ms\)\nProfile:\noperator +\| details +\| estimated rows +\| rows +\| db hits\n/m);
      expect(profiled.stdout).to.match(/^\+ProduceResults +\| i +\| [\d.]+ +\| 3 +\| \d+/m);
      expect(profiled.stdout).to.match(/^\| \+Unwind +\|/m);
      expect(profiled.stdout).to.match(/^\(\d+ db hits in all\)$/m);
      const explained = await shell(['-e', 'EXPLAIN UNWIND range(1, 3) AS i RETURN i']);
      expect(explained.code, explained.stderr).to.equal(0);
      expect(explained.stdout).to.match(/^i\n-+\n\(0 rows, \d+ ms\)\nPlan:\noperator +\| details +\| estimated rows\n/m);
    });
  });

  describe('installed from the running service, without the repository', function () {
    // The first request packs the package (a build), then npm installs it.
    this.timeout(300_000);
    let dir: string;
    before(async () => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'cypher-install-'));
      writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'cypher-install-check', private: true }));
      await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', `${env.service.url}/downloads/playbooks-cypher.tgz`], { cwd: dir, maxBuffer: 16 * 1024 * 1024 });
    });
    after(() => {
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('is served without a key, of the service’s version, with one command and no dependency', async () => {
      const reply = await request('GET', '/downloads/playbooks-cypher.tgz', { token: '' });
      expect(reply.status).to.equal(200);
      expect(reply.headers.get('content-type')).to.equal('application/gzip');
      expect(reply.headers.get('content-disposition')).to.include(`playbooks-cypher-${serviceVersion}.tgz`);
      const manifest = JSON.parse(readFileSync(path.join(dir, 'node_modules', '@playbooks', 'cypher', 'package.json'), 'utf8'));
      expect(manifest.version).to.equal(serviceVersion);
      expect(manifest.bin).to.deep.equal({ 'playbooks-cypher': 'dist/playbooks-cypher.js' });
      expect(manifest.dependencies ?? {}).to.deep.equal({});
      expect(readFileSync(path.join(dir, 'node_modules', '@playbooks', 'cypher', 'dist', 'playbooks-cypher.js'), 'utf8')).to.match(/^#!\/usr\/bin\/env node\n/);
    });

    it('the installed command answers a query and says where errors are, like npm run cypher', async () => {
      const bin = [path.join(dir, 'node_modules', '.bin', 'playbooks-cypher')];
      const help = await shell(['--help'], undefined, bin);
      expect(help.code, help.stderr).to.equal(0);
      expect(help.stdout).to.match(/^Usage: playbooks-cypher /);
      const one = await shell(['-e', 'RETURN 1 AS one', '--format', 'csv'], undefined, bin);
      expect(one.code, one.stderr).to.equal(0);
      expect(one.stdout.trim().split(/\r?\n/)).to.deep.equal(['one', '1']);
      const wrong = await shell(['-e', 'MATCH (n RETURN n'], undefined, bin);
      expect(wrong.code).to.equal(1);
      expect(caretUnder(wrong.stderr, '  MATCH (n RETURN n')).to.equal('  MATCH (n '.length);
    });
  });
});
