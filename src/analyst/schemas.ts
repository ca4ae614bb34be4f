import { type Static, Type } from '@sinclair/typebox';
import { Nullable, literals, named } from '../api/common-schemas.js';

/** One operator of a plan, in the order a depth-first walk from the root meets them. */
export const PlanOperatorSchema = Type.Object({
  operator: Type.String({ description: "Neo4j's operator, e.g. 'Expand(All)'" }),
  depth: Type.Integer({ minimum: 0, description: 'How far below the root (ProduceResults, depth 0) the operator is' }),
  details: Type.String({ description: "What the operator does, as Neo4j says it ('' when it says nothing)" }),
  identifiers: Type.Array(Type.String()),
  estimatedRows: Nullable(Type.Number({ description: "The planner's estimate" })),
  rows: Nullable(Type.Integer({ minimum: 0, description: 'PROFILE: the rows the operator produced; null for EXPLAIN' })),
  dbHits: Nullable(Type.Integer({ minimum: 0, description: 'PROFILE: the database hits of the operator; null for EXPLAIN' })),
});
export type PlanOperator = Static<typeof PlanOperatorSchema>;

/** What an index and a constraint share, as SHOW INDEXES and SHOW CONSTRAINTS name it. */
const schemaEntry = {
  name: Type.String(),
  entityType: literals(['NODE', 'RELATIONSHIP'], { description: 'Whether it is on nodes or on relationships' }),
  labelsOrTypes: Type.Union([Type.Array(Type.String()), Type.Null()], { description: 'The labels (nodes) or relationship types it is on; null for a LOOKUP index, which is on all of them' }),
  properties: Type.Union([Type.Array(Type.String()), Type.Null()], { description: 'The properties it covers, in order; null for a LOOKUP index' }),
};

export const SchemaIndexSchema = named('SchemaIndex', Type.Object({
  ...schemaEntry,
  type: Type.String({ description: "Neo4j's kind of index: 'RANGE', 'FULLTEXT', 'LOOKUP', 'TEXT', 'POINT', 'VECTOR'" }),
  state: Type.String({ description: "'ONLINE' once it can be used; 'POPULATING' while it is built; 'FAILED'" }),
}));
export type SchemaIndex = Static<typeof SchemaIndexSchema>;

export const SchemaConstraintSchema = named('SchemaConstraint', Type.Object({
  ...schemaEntry,
  type: Type.String({ description: "Neo4j's kind of constraint, e.g. 'UNIQUENESS' (on Neo4j 5) or 'NODE_PROPERTY_UNIQUENESS' (on later releases), 'NODE_KEY'" }),
}));
export type SchemaConstraint = Static<typeof SchemaConstraintSchema>;

/** The database's schema: shared by every workspace, so it holds names and no workspace's data. */
export const GraphSchemaSchema = named('GraphSchema', Type.Object({
  labels: Type.Array(Type.String(), { description: 'Every node label, sorted' }),
  relationshipTypes: Type.Array(Type.String(), { description: 'Every relationship type, sorted' }),
  propertyKeys: Type.Array(Type.String(), { description: 'Every property key, sorted' }),
  indexes: Type.Array(SchemaIndexSchema, { description: 'By name' }),
  constraints: Type.Array(SchemaConstraintSchema, { description: 'By name' }),
}));
export type GraphSchema = Static<typeof GraphSchemaSchema>;
