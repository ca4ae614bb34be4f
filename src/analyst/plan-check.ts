/**
 * What an analyst's query may do, judged on Neo4j's own EXPLAIN before it runs: its query type must be
 * exactly 'r', and every operator of its plan must be on the allow-list below (a deny-list would let through
 * whatever the next release adds). On 5.26 `LOAD CSV`, `SHOW TRANSACTIONS`, `SHOW SETTINGS`,
 * `TERMINATE TRANSACTIONS` and several procedures are all reported as 'r', so the query type alone is not
 * enough; `CALL {…} IN TRANSACTIONS` commits on its own; a procedure call passes only for a name below.
 * The one exception to 'r': Neo4j reports a call of a `dbms.` procedure as 's' whatever it does, so a plan
 * of type 's' passes when every procedure it calls is one of those that only read (`readingSystemProcedures`).
 */

/** Read operators of Neo4j 5 and 2025+ (Cypher manual, "Execution plan operators"), without their `(mode)`. */
export const allowedOperators = new Set([
  // leaves: scans and seeks
  'AllNodesScan', 'Argument', 'ArgumentTracker', 'NodeByLabelScan', 'NodeByIdSeek', 'NodeByElementIdSeek',
  'NodeIndexScan', 'NodeIndexSeek', 'NodeUniqueIndexSeek', 'MultiNodeIndexSeek', 'AssertingMultiNodeIndexSeek',
  'NodeIndexSeekByRange', 'NodeUniqueIndexSeekByRange', 'NodeIndexContainsScan', 'NodeIndexEndsWithScan',
  'IntersectionNodeByLabelsScan', 'UnionNodeByLabelsScan', 'SubtractionNodeByLabelsScan',
  'DirectedAllRelationshipsScan', 'UndirectedAllRelationshipsScan', 'DirectedRelationshipTypeScan', 'UndirectedRelationshipTypeScan',
  'DirectedUnionRelationshipTypesScan', 'UndirectedUnionRelationshipTypesScan',
  'DirectedRelationshipByIdSeek', 'UndirectedRelationshipByIdSeek', 'DirectedRelationshipByElementIdSeek', 'UndirectedRelationshipByElementIdSeek',
  'DirectedRelationshipIndexScan', 'UndirectedRelationshipIndexScan', 'DirectedRelationshipIndexSeek', 'UndirectedRelationshipIndexSeek',
  'DirectedRelationshipUniqueIndexSeek', 'UndirectedRelationshipUniqueIndexSeek',
  'DirectedRelationshipIndexSeekByRange', 'UndirectedRelationshipIndexSeekByRange',
  'DirectedRelationshipUniqueIndexSeekByRange', 'UndirectedRelationshipUniqueIndexSeekByRange',
  'DirectedRelationshipIndexContainsScan', 'UndirectedRelationshipIndexContainsScan',
  'DirectedRelationshipIndexEndsWithScan', 'UndirectedRelationshipIndexEndsWithScan',
  'NodeCountFromCountStore', 'RelationshipCountFromCountStore',
  // traversal
  'Expand', 'OptionalExpand', 'VarLengthExpand', 'BFSPruningVarLengthExpand', 'ShortestPath', 'StatefulShortestPath',
  'Repeat', 'Trail', 'NullifyMetadata', 'ProjectEndpoints',
  // joins, subqueries and existence
  'Apply', 'SemiApply', 'AntiSemiApply', 'LetSemiApply', 'LetAntiSemiApply', 'SelectOrSemiApply', 'SelectOrAntiSemiApply',
  'LetSelectOrSemiApply', 'LetSelectOrAntiSemiApply', 'ConditionalApply', 'AntiConditionalApply', 'RollUpApply',
  'CartesianProduct', 'NodeHashJoin', 'ValueHashJoin', 'NodeLeftOuterHashJoin', 'NodeRightOuterHashJoin',
  'TriadicSelection', 'TriadicBuild', 'TriadicFilter', 'Optional', 'Anti', 'AssertSameNode', 'AssertSameRelationship',
  'Union', 'OrderedUnion',
  // rows
  'Filter', 'Projection', 'Limit', 'ExhaustiveLimit', 'Skip', 'Sort', 'PartialSort', 'Top', 'PartialTop', 'Distinct',
  'OrderedDistinct', 'EagerAggregation', 'OrderedAggregation', 'Unwind', 'PartitionedUnwind', 'Eager', 'CacheProperties',
  'ProduceResults', 'EmptyResult', 'EmptyRow', 'Input',
  // the schema's metadata: SHOW INDEXES and SHOW CONSTRAINTS (the other SHOW commands are refused)
  'ShowIndexes', 'ShowConstraints',
  // checked further: only allow-listed procedures
  'ProcedureCall',
]);

/** Read-only procedures an analyst may call: the schema and the full-text index. */
export const allowedProcedures = new Set([
  'db.labels',
  'db.relationshipTypes',
  'db.propertyKeys',
  'db.schema.visualization',
  'db.schema.nodeTypeProperties',
  'db.schema.relTypeProperties',
  'db.index.fulltext.queryNodes',
  'db.index.fulltext.queryRelationships',
  'dbms.components',
]);

/** Allowed procedures Neo4j reports as schema or system ('s') queries although they only read. */
export const readingSystemProcedures = new Set(['dbms.components']);

export interface PlanNode {
  operatorType: string;
  arguments: Record<string, unknown>;
  children: PlanNode[];
}

/** `Expand(All)@neo4j` → `Expand`. */
export const operatorName = (operatorType: string) => operatorType.replace(/@.*$/, '').replace(/\(.*$/, '').trim();

/** The procedure a ProcedureCall operator calls, from its details (`db.labels() :: (label :: STRING)`). */
function procedureOf(node: PlanNode): string | undefined {
  for (const key of ['Details', 'details', 'Signature', 'signature']) {
    const value = node.arguments[key];
    const m = typeof value === 'string' ? /^\s*([A-Za-z_][\w.]*)\s*\(/.exec(value) : null;
    if (m) return m[1];
  }
  return undefined;
}

/** Why the query may not run, or undefined when it may. */
export function refusal(queryType: string, plan: PlanNode | undefined): string | undefined {
  const typeRefusal = queryType === 'r' ? undefined : refusalOfType(queryType);
  if (typeRefusal && queryType !== 's') return typeRefusal;
  if (!plan) return typeRefusal ?? 'Neo4j gave no plan for the query';
  const procedures: string[] = [];
  const stack = [plan];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const name = operatorName(node.operatorType);
    if (!allowedOperators.has(name)) return typeRefusal ?? `The plan uses ${name}, which is not an allowed read operator`;
    if (name === 'ProcedureCall') {
      const procedure = procedureOf(node);
      if (!procedure || !allowedProcedures.has(procedure)) {
        return `The procedure ${procedure ?? '(unknown)'} is not allowed; allowed: ${[...allowedProcedures].join(', ')}`;
      }
      procedures.push(procedure);
    }
    stack.push(...(node.children ?? []));
  }
  if (typeRefusal && !(procedures.length > 0 && procedures.every((p) => readingSystemProcedures.has(p)))) return typeRefusal;
  return undefined;
}

/** Why a query of this type may not run, said of the query first ("This query writes: …"). */
function refusalOfType(queryType: string): string {
  // A query that reads before it writes is, to its author, a query that writes.
  const kind = { w: 'writes', rw: 'writes', s: 'is a schema or administration command' }[queryType] ?? `is of query type '${queryType}'`;
  return `This query ${kind}: only read queries may run here`;
}
