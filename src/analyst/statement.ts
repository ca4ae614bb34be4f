/**
 * An analyst's statement as the query process handles it: the EXPLAIN or PROFILE its author put at its start,
 * the text the plan check sends (`EXPLAIN ` before the statement), and Neo4j's errors about that text told back
 * in the positions of the text the analyst sent.
 */
import { AppError } from '../errors.js';
import type { PlanOperator } from './schemas.js';

/** What the analyst asked: the rows, the plan alone (EXPLAIN, nothing runs), or the rows and the profile. */
export type ExecutionMode = 'run' | 'explain' | 'profile';

/** What the plan check sends before the statement; every position Neo4j gives in an error about it is this much further on. */
const checkPrefix = 'EXPLAIN ';

export interface Statement {
  mode: ExecutionMode;
  /** As the analyst sent it: what runs (for PROFILE, with its PROFILE). */
  text: string;
  /** The EXPLAIN the plan check sends: the statement with its own EXPLAIN or PROFILE blanked out, so positions hold. */
  check: string;
}

// Sticky patterns, each tried once where the previous one ended: the scan is linear in the statement's start.
const blank = /(?:\s+|\/\/[^\n]*|\/\*[\s\S]*?\*\/)/y;
const cypherOptions = /CYPHER(?:\s+\d+(?:\.\d+)?)?(?:\s+[A-Za-z_][\w.]*\s*=\s*[\w.]+)*(?=[\s/]|$)/iy;
const modeKeyword = /(EXPLAIN|PROFILE)(?![\w$])/iy;

/** The statement's mode from its start (blank space, comments and `CYPHER` options may come before the keyword). */
export function statementOf(text: string): Statement {
  let at = 0;
  for (let moved = true; moved; ) {
    moved = false;
    for (const pattern of [blank, cypherOptions]) {
      pattern.lastIndex = at;
      if (pattern.test(text) && pattern.lastIndex > at) {
        at = pattern.lastIndex;
        moved = true;
      }
    }
  }
  modeKeyword.lastIndex = at;
  const keyword = modeKeyword.exec(text);
  if (!keyword) return { mode: 'run', text, check: `${checkPrefix}${text}` };
  const blanked = `${text.slice(0, at)}${' '.repeat(keyword[0].length)}${text.slice(at + keyword[0].length)}`;
  return { mode: keyword[1].toUpperCase() === 'EXPLAIN' ? 'explain' : 'profile', text, check: `${checkPrefix}${blanked}` };
}

interface Position {
  line: number;
  column: number;
  offset: number;
}

const positionClause = /\(line (\d+), column (\d+) \(offset: (\d+)\)\)/;

/**
 * An invalid_cypher error about the plan check's text, as if about the analyst's: its position moved back past
 * `EXPLAIN ` (the first line's columns and every offset), and Neo4j's excerpt of the line (the line in quotes, a
 * caret under the column) made again from the analyst's line. Any other error is returned as it is.
 */
export function asTyped(err: unknown, text: string): unknown {
  if (!(err instanceof AppError) || err.code !== 'invalid_cypher') return err;
  const given = err.extensions?.position as Position | undefined;
  if (!given) return err;
  const shift = checkPrefix.length;
  const position: Position = {
    line: given.line,
    column: given.line === 1 ? Math.max(1, given.column - shift) : given.column,
    offset: Math.max(0, given.offset - shift),
  };
  const [head, ...excerpt] = err.message.split('\n');
  const fixedHead = head.replace(positionClause, `(line ${position.line}, column ${position.column} (offset: ${position.offset}))`);
  const line = text.split('\n')[position.line - 1];
  // Neo4j's excerpt: the line in double quotes, then a caret under the column (one further for the quote).
  const fixedExcerpt = excerpt.length > 0 && line !== undefined ? [`"${line}"`, `${' '.repeat(position.column)}^`] : excerpt;
  return new AppError('invalid_cypher', [fixedHead, ...fixedExcerpt].join('\n'), {
    cause: err.cause,
    errors: err.errors?.map((e) => (e.path === '/query' ? { ...e, message: fixedHead } : e)),
    headers: err.headers,
    extensions: { ...err.extensions, position },
  });
}

/**
 * Neo4j's refusal of a second EXPLAIN or PROFILE (the check's own, or one after the first) as what the analyst can
 * change; any other error as it is.
 */
export function withModeExplained(err: unknown): unknown {
  if (!(err instanceof AppError) || err.code !== 'invalid_cypher' || !/conflicting values for execution mode/i.test(err.message)) return err;
  return new AppError('invalid_cypher', 'EXPLAIN or PROFILE may come once, at the start of the statement (before or after its CYPHER options)', {
    cause: err.cause,
    errors: [{ path: '/query', message: 'EXPLAIN or PROFILE once, at the start', in: 'body' }],
    extensions: err.extensions,
  });
}

/** The plan or profile the driver gives, as in the plan-check's walk. */
interface DriverPlan {
  operatorType: string;
  identifiers?: string[];
  arguments?: Record<string, unknown>;
  dbHits?: number;
  rows?: number;
  children?: DriverPlan[];
}

const numberOrNull = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : null);

/** A plan's operators, root first, each followed by its children (the left one first), with its depth. */
export function operatorsOf(plan: DriverPlan, profiled: boolean): PlanOperator[] {
  const operators: PlanOperator[] = [];
  const stack: { node: DriverPlan; depth: number }[] = [{ node: plan, depth: 0 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    const args = node.arguments ?? {};
    operators.push({
      operator: node.operatorType.replace(/@.*$/, ''),
      depth,
      details: typeof args.Details === 'string' ? args.Details : '',
      identifiers: [...(node.identifiers ?? [])],
      estimatedRows: numberOrNull(args.EstimatedRows),
      rows: profiled ? numberOrNull(node.rows) : null,
      dbHits: profiled ? numberOrNull(node.dbHits) : null,
    });
    const children = node.children ?? [];
    for (let i = children.length - 1; i >= 0; i--) stack.push({ node: children[i], depth: depth + 1 });
  }
  return operators;
}
