/**
 * The shell's `:schema`: the graph's labels, relationship types, property keys, indexes and constraints, as the
 * service's readGraphSchema answers them (`client.analyst.schema()`, which the console's Cypher page reads too).
 * The shell is served by the service it talks to (/downloads), so the operation is there whenever the shell is.
 */
import type { GraphSchema, SchemaConstraint, SchemaIndex } from '@playbooks/client';
import { type OutputFormat, table } from './terminal-format.js';

const indexColumns: (keyof SchemaIndex)[] = ['name', 'type', 'entityType', 'labelsOrTypes', 'properties', 'state'];
const constraintColumns: (keyof SchemaConstraint)[] = ['name', 'type', 'entityType', 'labelsOrTypes', 'properties'];

const list = (title: string, names: string[]) => `${title} (${names.length}): ${names.join(', ') || '(none)'}`;

function tableOf<T extends SchemaIndex | SchemaConstraint>(title: string, columns: (keyof T)[], rows: T[]): string {
  if (rows.length === 0) return `${title} (0): (none)`;
  return `${title} (${rows.length}):\n${table(columns as string[], rows.map((r) => columns.map((c) => r[c])))}`;
}

/** The schema as JSON, or as lines and tables (for the table and CSV formats alike). */
export function renderSchema(schema: GraphSchema, format: OutputFormat): string {
  if (format === 'json') return JSON.stringify(schema, null, 2);
  return [
    list('Labels', schema.labels),
    list('Relationship types', schema.relationshipTypes),
    list('Property keys', schema.propertyKeys),
    tableOf('Indexes', indexColumns, schema.indexes),
    tableOf('Constraints', constraintColumns, schema.constraints),
  ].join('\n');
}
