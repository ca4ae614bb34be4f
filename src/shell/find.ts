import { parseArgs } from 'node:util';
import { type QueryContextData, type QueryContextResponse, reasonText } from '@playbooks/client';
import { AppError } from '../errors.js';
import { serviceClient } from './connection.js';
import { table } from './terminal-format.js';

/** `npm run cli -- find "QUESTION" --workspace WS`: a question asked as a sentence, through a running service. */

type Mode = NonNullable<QueryContextData['body']>['mode'];
const modes: Mode[] = ['hybrid', 'words', 'meaning'];

/** The answer as a table (rank, title, slug, score, reason) and a line saying how much of the ranking it is and how it was searched. */
export function answerTable(answer: QueryContextResponse, askedMode: Mode): string {
  if (answer.nodes.length === 0) return 'Nothing found.';
  const titles = new Map(answer.nodes.map((n) => [n.id, n.title]));
  const rows = answer.nodes.map((n, i) => [i + 1, n.title, n.slug, n.score.toFixed(2), reasonText(n.reason, (id) => titles.get(id))]);
  const { mode, model, degraded } = answer.query;
  const searched = mode === 'hybrid' ? 'words and meaning' : mode;
  const fallback = degraded ? ' (the question could not be embedded now)' : askedMode !== 'words' && mode === 'words' ? ' (meaning search is not available)' : '';
  const more = answer.omittedCount ? `; ${answer.omittedCount} more (--limit)` : '';
  const footer = `(${answer.nodes.length} of ${answer.rankedCount} nodes${more}; searched by ${searched}${model ? `, ${model}` : ''}${fallback})`;
  return `${table(['rank', 'title', 'slug', 'score', 'reason'], rows, 60)}\n${footer}`;
}

const intOption = (value: string | undefined, name: string, min: number, max: number): number | undefined => {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) throw new AppError('invalid_request', `--${name} is a whole number from ${min} to ${max}`);
  return n;
};

/** Runs `find` with the command line's arguments after the command name; `usage` is the CLI's help, shown with a mistake. */
export async function findCommand(args: string[], usage: string): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      workspace: { type: 'string' }, mode: { type: 'string', default: 'hybrid' }, depth: { type: 'string' },
      limit: { type: 'string' }, format: { type: 'string', default: 'table' },
    },
  });
  const question = positionals.join(' ').trim();
  const key = process.env.API_KEY;
  if (!question || !values.workspace) throw new AppError('invalid_request', `find takes a question and --workspace\n\n${usage}`);
  if (!key) throw new AppError('invalid_request', 'Set API_KEY to a user or agent key of a member of the workspace');
  const mode = values.mode as Mode;
  if (!modes.includes(mode)) throw new AppError('invalid_request', '--mode is hybrid, words or meaning');
  if (values.format !== 'table' && values.format !== 'json') throw new AppError('invalid_request', '--format is table or json');
  const answer = await serviceClient(key, values.workspace).context.query({
    q: question,
    mode,
    depth: intOption(values.depth, 'depth', 0, 3) ?? 1,
    limit: intOption(values.limit, 'limit', 1, 50) ?? 10,
  });
  process.stdout.write(`${values.format === 'json' ? JSON.stringify(answer, null, 2) : answerTable(answer, mode)}\n`);
}
