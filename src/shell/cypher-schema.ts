/**
 * The shell's `:schema`: the graph's labels, relationship types, property keys, indexes and constraints, asked
 * of the same endpoint as any statement (POST /api/v1/admin/cypher), with statements its allow-list lets through.
 */
import type { PlaybooksClient, RunCypherResponse } from '@playbooks/client';
import { type OutputFormat, table } from './answers.js';

/** The statements `:schema` runs, one after the other (the endpoint runs a few queries at once per caller). */
export const schemaStatements = {
  tokens: `RETURN COLLECT { CALL db.labels() YIELD label RETURN label ORDER BY label } AS labels,
  COLLECT { CALL db.relationshipTypes() YIELD relationshipType RETURN relationshipType ORDER BY relationshipType } AS relationshipTypes,
  COLLECT { CALL db.propertyKeys() YIELD propertyKey RETURN propertyKey ORDER BY propertyKey } AS propertyKeys`,
  indexes: 'SHOW INDEXES YIELD name, type, entityType, labelsOrTypes, properties, state ORDER BY name',
  constraints: 'SHOW CONSTRAINTS YIELD name, type, entityType, labelsOrTypes, properties ORDER BY name',
} as const;

export interface GraphSchema {
  labels: string[];
  relationshipTypes: string[];
  propertyKeys: string[];
  indexes: Record<string, unknown>[];
  constraints: Record<string, unknown>[];
}

async function ask(client: PlaybooksClient, query: string): Promise<RunCypherResponse> {
  // A read sent as a POST: retried as it is, like the shell's statements.
  return (await client.request<RunCypherResponse>('POST', '/api/v1/admin/cypher', { json: { query }, idempotent: true })).data;
}

const records = (answer: RunCypherResponse) => answer.rows.map((row) => Object.fromEntries(answer.columns.map((c, i) => [c, row[i]])));

export async function readSchema(client: PlaybooksClient): Promise<GraphSchema> {
  const tokens = records(await ask(client, schemaStatements.tokens))[0] as Pick<GraphSchema, 'labels' | 'relationshipTypes' | 'propertyKeys'>;
  const indexes = records(await ask(client, schemaStatements.indexes));
  const constraints = records(await ask(client, schemaStatements.constraints));
  return { ...tokens, indexes, constraints };
}

const list = (title: string, names: string[]) => `${title} (${names.length}): ${names.join(', ') || '(none)'}`;

function tableOf(title: string, rows: Record<string, unknown>[]): string {
  if (rows.length === 0) return `${title} (0): (none)`;
  const columns = Object.keys(rows[0]);
  return `${title} (${rows.length}):\n${table(columns, rows.map((r) => columns.map((c) => r[c])))}`;
}

/** The schema as JSON, or as lines and tables (for the table and CSV formats alike). */
export function renderSchema(schema: GraphSchema, format: OutputFormat): string {
  if (format === 'json') return JSON.stringify(schema, null, 2);
  return [
    list('Labels', schema.labels),
    list('Relationship types', schema.relationshipTypes),
    list('Property keys', schema.propertyKeys),
    tableOf('Indexes', schema.indexes),
    tableOf('Constraints', schema.constraints),
  ].join('\n');
}
