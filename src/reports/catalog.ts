import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { type TObject, type TSchema, Type } from '@sinclair/typebox';
import { cypherDir } from '../infra/cypher-files.js';
import type { ReportSummary } from './schemas.js';

export const reportsDir = path.join(cypherDir, 'reports');

export type ReportParamType = 'integer' | 'string' | 'boolean' | 'date' | 'month';

export interface ReportParam {
  name: string;
  type: ReportParamType;
  description: string;
  default?: string | number | boolean;
  /** May be left out without a default: the statement gets null. */
  optional: boolean;
  minimum?: number;
  maximum?: number;
  /** The only values a string parameter takes. */
  values?: string[];
}

export interface Report {
  /** The file name without `.cypher`: the last segment of its URL. */
  name: string;
  title: string;
  description: string;
  parameters: ReportParam[];
  columns: string[];
  /** The query parameters as a JSON Schema: validates a run's query string and documents it in OpenAPI. */
  querySchema: TObject;
}

export class ReportHeaderError extends Error {}

/**
 * Every saved report under cypher/reports, its header parsed once at start-up. A header is the file's leading
 * `//` lines:
 *
 *   // title: Hubs
 *   // description: The live nodes the most links require or reference.
 *   //   (an indented line continues the line before)
 *   // param limit (integer, 1..1000, default 50): how many nodes to list
 *   // param linkType (string, one of requires|references|both, default both): which links count
 *   // param from (date, optional): the first day counted
 *   // columns: id, slug, title, requiredBy
 *   // (comment lines after the columns are notes on the statement, not header)
 *
 * Types: integer, string, boolean, date (YYYY-MM-DD), month (YYYY-MM). A parameter with neither a default nor
 * `optional` is required. `$workspaceId` is always the workspace in the path and is never a parameter.
 */
export function loadReports(dir = reportsDir): Report[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.cypher'))
    .sort()
    .map((file) => {
      const name = file.replace(/\.cypher$/, '');
      try {
        return parseReport(name, readFileSync(path.join(dir, file), 'utf8'));
      } catch (err) {
        throw new ReportHeaderError(`cypher/reports/${file}: ${(err as Error).message}`);
      }
    });
}

let catalog: Report[] | undefined;

/** The reports of cypher/reports, read once per process: the routes and the service share them. */
export function reportCatalog(): Report[] {
  return (catalog ??= loadReports());
}

const paramLine = /^param\s+([A-Za-z][A-Za-z0-9]*)\s+\(([^)]*)\):\s*(.+)$/;

export function parseReport(name: string, text: string): Report {
  if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(name)) throw new Error('a report name is lowercase words joined by hyphens');
  const fields: { key: string; value: string }[] = [];
  for (const raw of text.split('\n')) {
    if (!raw.startsWith('//')) break;
    const line = raw.slice(2);
    if (/^\s{2,}\S/.test(line) && fields.length > 0) fields[fields.length - 1].value += ` ${line.trim()}`;
    // The header ends with its columns; comment lines after them are notes on the statement.
    else if (fields.some((f) => f.key === 'columns')) break;
    else if (line.trim()) {
      const m = /^\s*(title|description|columns):\s*(.*)$/.exec(line) ?? /^\s*(param)\s+(.*)$/.exec(line);
      if (!m) throw new Error(`header line not understood: ${raw}`);
      fields.push({ key: m[1], value: m[1] === 'param' ? `param ${m[2]}` : m[2] });
    }
  }
  const one = (key: string) => {
    const found = fields.filter((f) => f.key === key);
    if (found.length !== 1) throw new Error(`the header needs exactly one '${key}:' line`);
    return found[0].value.trim();
  };
  const parameters = fields.filter((f) => f.key === 'param').map((f) => parseParam(f.value));
  if (parameters.some((p) => p.name === 'workspaceId')) throw new Error('workspaceId is the path’s, never a parameter');
  if (!/\$workspaceId\b/.test(text)) throw new Error('every report is scoped by $workspaceId');
  const columns = one('columns').split(',').map((c) => c.trim()).filter(Boolean);
  const properties: Record<string, TSchema> = {};
  for (const p of parameters) properties[p.name] = p.optional || p.default !== undefined ? Type.Optional(schemaOf(p)) : schemaOf(p);
  return {
    name,
    title: one('title'),
    description: one('description'),
    parameters,
    columns,
    querySchema: Type.Object(properties, { additionalProperties: false }),
  };
}

function parseParam(line: string): ReportParam {
  const m = paramLine.exec(line);
  if (!m) throw new Error(`expected 'param NAME (TYPE[, MIN..MAX][, one of A|B][, default V][, optional]): description', got: ${line}`);
  const [, name, spec, description] = m;
  const [type, ...options] = spec.split(',').map((s) => s.trim());
  if (!['integer', 'string', 'boolean', 'date', 'month'].includes(type)) throw new Error(`parameter ${name}: unknown type ${type}`);
  const param: ReportParam = { name, type: type as ReportParamType, description: description.trim(), optional: false };
  for (const option of options) {
    let o: RegExpExecArray | null;
    if ((o = /^(-?\d+)\.\.(-?\d+)$/.exec(option))) {
      param.minimum = Number(o[1]);
      param.maximum = Number(o[2]);
    } else if ((o = /^one of (.+)$/.exec(option))) param.values = o[1].split('|').map((v) => v.trim());
    else if ((o = /^default (.+)$/.exec(option))) param.default = o[1].trim();
    else if (option === 'optional') param.optional = true;
    else throw new Error(`parameter ${name}: option not understood: ${option}`);
  }
  if (param.default !== undefined) {
    if (param.type === 'integer') param.default = Number(param.default);
    else if (param.type === 'boolean') param.default = param.default === 'true';
  }
  return param;
}

const formats: Record<ReportParamType, object> = {
  integer: {},
  boolean: {},
  string: { minLength: 1, maxLength: 200 },
  date: { format: 'date', description: 'YYYY-MM-DD' },
  month: { pattern: '^[0-9]{4}-(0[1-9]|1[0-2])$', description: 'YYYY-MM' },
};

function schemaOf(p: ReportParam): TSchema {
  const common = { description: p.description, ...(p.default !== undefined ? { default: p.default } : {}) };
  switch (p.type) {
    case 'integer':
      return Type.Integer({ ...common, ...(p.minimum !== undefined ? { minimum: p.minimum, maximum: p.maximum } : {}) });
    case 'boolean':
      return Type.Boolean(common);
    default:
      if (p.values) return Type.Unsafe<string>({ type: 'string', enum: p.values, ...common });
      return Type.String({ ...formats[p.type], ...common, description: `${p.description}${p.type === 'string' ? '' : ` (${(formats[p.type] as { description: string }).description})`}` });
  }
}

/** What the lists of reports say of one (the workspace's list, and the analysts'), with where to run it. */
export function summaryOf(report: Report, path: string): ReportSummary {
  return {
    name: report.name,
    title: report.title,
    description: report.description,
    path,
    parameters: report.parameters.map((p) => ({
      name: p.name,
      type: p.type,
      description: p.description,
      required: !p.optional && p.default === undefined,
      ...(p.default !== undefined ? { default: p.default } : {}),
      ...(p.minimum !== undefined ? { minimum: p.minimum, maximum: p.maximum } : {}),
      ...(p.values ? { values: p.values } : {}),
    })),
    columns: report.columns,
  };
}
