/**
 * What an analyst's query may do, judged on Neo4j's own EXPLAIN before it runs: its query type must be
 * exactly 'r', and every operator of its plan must be on the allow-list below (a deny-list would let through
 * whatever the next release adds). On 5.26 `LOAD CSV`, `SHOW TRANSACTIONS`, `SHOW SETTINGS`,
 * `TERMINATE TRANSACTIONS` and several procedures are all reported as 'r', so the query type alone is not
 * enough; `CALL {…} IN TRANSACTIONS` commits on its own; a procedure call passes only for a name below.
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
  if (queryType !== 'r') {
    const kind = { w: 'it writes', rw: 'it reads and writes', s: 'it is a schema or administration command' }[queryType] ?? `its query type is '${queryType}'`;
    return `Only read queries may run, and ${kind}`;
  }
  if (!plan) return 'Neo4j gave no plan for the query';
  const stack = [plan];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const name = operatorName(node.operatorType);
    if (!allowedOperators.has(name)) return `The plan uses ${name}, which is not an allowed read operator`;
    if (name === 'ProcedureCall') {
      const procedure = procedureOf(node);
      if (!procedure || !allowedProcedures.has(procedure)) {
        return `The procedure ${procedure ?? '(unknown)'} is not allowed; allowed: ${[...allowedProcedures].join(', ')}`;
      }
    }
    stack.push(...(node.children ?? []));
  }
  return undefined;
}
