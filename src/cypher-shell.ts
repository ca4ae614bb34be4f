import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import type { PlaybooksClient } from '@playbooks/client';
import { type OutputFormat, describeError, parseParams, render } from './shell/terminal-format.js';
import { apiUrl, serviceClient } from './shell/connection.js';
import { renderSchema } from './shell/cypher-schema.js';
import { type ScriptStatement, labelOf, statementsOf } from './shell/cypher-script.js';

const usage = `Usage: playbooks-cypher [-e QUERY | -f FILE] [--param name=value ...] [--format table|csv|json] [--limit N] [--timeout MS]
       (in the repository: npm run cypher -- …)

A read-only Cypher shell over the service's POST /api/v1/admin/cypher, with ANALYST_TOKEN (or ADMIN_TOKEN) from
the environment and the service at API_URL (default http://localhost:3000). Without -e or -f: an interactive
shell; a statement ends with ';' and may span lines. With several statements, each answer says which: as a table
it follows a line '-- statement N (line L): …'; in CSV that line goes to stderr and the answers are separated by an
empty line; in JSON the answers make one array, each with a "statement" member. A statement that fails is reported
on stderr, the others still run, and the exit code is 1. EXPLAIN or PROFILE before a statement shows its plan.
Shell commands: :schema (labels, relationship types, property keys, indexes, constraints), :param name=value,
:params, :format F, :limit N, :timeout MS, :help, :exit. History is kept in ~/.playbooks_cypher_history.`;

interface Settings {
  params: Record<string, unknown>;
  format: OutputFormat;
  limit?: number;
  timeoutMs?: number;
}

/** An answer as text for stdout (a JSON answer also as its value); a CSV answer that was cut has a note for stderr. */
interface Answer {
  text: string;
  value?: unknown;
  note?: string;
}

async function runOne(query: string, client: PlaybooksClient, s: Settings): Promise<Answer> {
  const body = { query, params: s.params, ...(s.limit ? { limit: s.limit } : {}), ...(s.timeoutMs ? { timeoutMs: s.timeoutMs } : {}) };
  if (s.format === 'csv') {
    const answer = await client.analyst.cypherCsv(body);
    return { text: render('csv', answer.text), note: answer.truncated ? `(${rowsText(answer.rowCount)}, ${cutReason(answer.truncatedBy, s.limit)})` : undefined };
  }
  const a = await client.analyst.cypher(body);
  if (s.format === 'json') return { text: render('json', a), value: a };
  const footer = `(${rowsText(a.rowCount)}${a.truncated ? `, ${cutReason(a.truncatedBy, a.limit)}` : ''}, ${a.elapsedMs} ms)`;
  return { text: render(s.format, a, footer) };
}

const rowsText = (n: number) => `${n} row${n === 1 ? '' : 's'}`;

/** Why an answer was cut, in words; a service from before truncatedBy cut only at the row limit. */
function cutReason(truncatedBy: string | null | undefined, limit: number | undefined): string {
  if (truncatedBy === 'bytes') return 'cut at the size bound: a value or the answer was too large';
  return limit ? `cut at the limit of ${limit}` : 'cut at the row limit';
}

/** A CSV answer ends its last record as the service's CSV ends the others (CRLF), so that stdout is CSV throughout. */
function print(answer: Answer, format: OutputFormat): void {
  process.stdout.write(`${answer.text}${format === 'csv' ? '\r\n' : '\n'}`);
  if (answer.note) process.stderr.write(`${answer.note}\n`);
}

/**
 * A script's statements in order (-e, -f). With several, each answer says which statement it is, in a way that keeps
 * stdout of the chosen format: a table after a line `-- statement N (line L): …`; CSV answers one after another,
 * separated by an empty line, with that line on stderr; JSON answers as one array, each with a "statement" member
 * first. A statement that fails is reported on stderr, labelled, and the next still runs. Whether all succeeded.
 */
async function runScript(statements: ScriptStatement[], client: PlaybooksClient, s: Settings): Promise<boolean> {
  const several = statements.length > 1;
  const documents: unknown[] = [];
  let answered = 0;
  let failed = false;
  for (const statement of statements) {
    const label = several ? labelOf(statement) : undefined;
    let answer: Answer;
    try {
      answer = await runOne(statement.text, client, s);
    } catch (err) {
      failed = true;
      process.stderr.write(`${label ? `${label}\n` : ''}${describeError(err, statement.text)}\n`);
      continue;
    }
    if (!several) print(answer, s.format);
    else if (s.format === 'json') documents.push({ statement: { number: statement.number, line: statement.line, text: statement.text }, ...(answer.value as object) });
    else if (s.format === 'csv') {
      process.stderr.write(`${label}\n`);
      if (answered > 0) process.stdout.write('\r\n');
      print(answer, s.format);
    } else print({ ...answer, text: `${label}\n${answer.text}` }, s.format);
    answered++;
  }
  if (several && s.format === 'json') process.stdout.write(`${render('json', documents)}\n`);
  return !failed;
}

function formatOf(value: string): OutputFormat {
  if (value !== 'table' && value !== 'csv' && value !== 'json') throw new Error(`--format is table, csv or json, not '${value}'`);
  return value;
}

async function repl(client: PlaybooksClient, s: Settings): Promise<void> {
  const historyFile = path.join(os.homedir(), '.playbooks_cypher_history');
  const history = existsSync(historyFile) ? readFileSync(historyFile, 'utf8').split('\n').filter(Boolean).reverse() : [];
  const rl = createInterface({ input: process.stdin, output: process.stdout, history, historySize: 1000, removeHistoryDuplicates: true, prompt: 'cypher> ' });
  process.stdout.write(`Connected to ${apiUrl()} (read-only). End a statement with ';'. :help for commands.\n`);
  let buffer: string[] = [];
  // Piped input can end while a statement still runs; Node 24's readline refuses a prompt after that.
  let closed = false;
  rl.on('close', () => (closed = true));
  rl.prompt();
  for await (const line of rl) {
    const trimmed = line.trim();
    if (buffer.length === 0 && trimmed.startsWith(':')) {
      const [command, ...rest] = trimmed.split(/\s+/);
      const arg = rest.join(' ');
      try {
        if (command === ':exit' || command === ':quit') break;
        else if (command === ':help') process.stdout.write(`${usage}\n`);
        else if (command === ':param') Object.assign(s.params, parseParams([arg]));
        else if (command === ':params') process.stdout.write(`${JSON.stringify(s.params)}\n`);
        else if (command === ':schema') process.stdout.write(`${renderSchema(await client.analyst.schema(), s.format)}\n`);
        else if (command === ':format') s.format = formatOf(arg);
        else if (command === ':limit') s.limit = Number(arg) || undefined;
        else if (command === ':timeout') s.timeoutMs = Number(arg) || undefined;
        else process.stdout.write(`Unknown command ${command}; :help lists them\n`);
      } catch (err) {
        process.stdout.write(`${describeError(err)}\n`);
      }
    } else if (trimmed) {
      buffer.push(line);
      if (trimmed.endsWith(';')) {
        const query = buffer.join('\n').trim().replace(/;$/, '');
        buffer = [];
        try {
          print(await runOne(query, client, s), s.format);
        } catch (err) {
          process.stdout.write(`${describeError(err, query)}\n`);
        }
      }
    }
    if (closed) continue;
    rl.setPrompt(buffer.length > 0 ? '   ...> ' : 'cypher> ');
    rl.prompt();
  }
  rl.close();
  // readline keeps the newest first.
  const kept = (rl as unknown as { history: string[] }).history ?? [];
  writeFileSync(historyFile, `${[...kept].reverse().join('\n')}\n`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      execute: { type: 'string', short: 'e' },
      file: { type: 'string', short: 'f' },
      param: { type: 'string', multiple: true, default: [] },
      format: { type: 'string', default: 'table' },
      limit: { type: 'string' },
      timeout: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return void process.stdout.write(`${usage}\n`);
  const token = process.env.ANALYST_TOKEN || process.env.ADMIN_TOKEN;
  if (!token) throw new Error('Set ANALYST_TOKEN (or ADMIN_TOKEN) to the deployment’s token');
  const settings: Settings = {
    params: parseParams(values.param),
    format: formatOf(values.format),
    limit: values.limit ? Number(values.limit) : undefined,
    timeoutMs: values.timeout ? Number(values.timeout) : undefined,
  };
  const client = serviceClient(token);
  const script = values.execute ?? (values.file ? readFileSync(values.file, 'utf8') : undefined);
  if (script === undefined) return repl(client, settings);
  if (!(await runScript(statementsOf(script), client, settings))) process.exitCode = 1;
}

// A reader that stops early (`| head`) closes the pipe: the shell ends quietly, with the exit code it has so far, as
// other command-line tools do, instead of an unhandled EPIPE.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit();
    throw err;
  });
}

main().catch((err) => {
  process.stderr.write(`${describeError(err)}\n`);
  process.exit(1);
});
