import { type Static, Type } from '@sinclair/typebox';
import { Nullable } from '../http/common-schemas.js';

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
