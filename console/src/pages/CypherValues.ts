/**
 * Values of an analyst answer as the service encodes them (src/analyst/values.ts): nodes {elementId, labels,
 * properties}, relationships {elementId, type, startElementId, endElementId, properties}, paths {nodes,
 * relationships}; everything else plain JSON.
 */

/** "1 row", "2 rows", "1,000 rows": how many rows an answer holds. */
export const rowsText = (n: number) => `${n.toLocaleString('en')} ${n === 1 ? 'row' : 'rows'}`;

export interface GraphNode {
  elementId: string;
  labels: string[];
  properties: Record<string, unknown>;
}

export interface GraphRelationship {
  elementId: string;
  type: string;
  startElementId: string;
  endElementId: string;
  properties: Record<string, unknown>;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const keysAre = (v: Obj, keys: string[]) => Object.keys(v).length === keys.length && keys.every((k) => k in v);

export const isNode = (v: unknown): v is GraphNode =>
  isObj(v) && keysAre(v, ['elementId', 'labels', 'properties']) && typeof v.elementId === 'string' && Array.isArray(v.labels) && isObj(v.properties);

export const isRelationship = (v: unknown): v is GraphRelationship =>
  isObj(v) && keysAre(v, ['elementId', 'type', 'startElementId', 'endElementId', 'properties']) && typeof v.elementId === 'string' && typeof v.type === 'string' && isObj(v.properties);

const isPath = (v: unknown): v is { nodes: unknown[]; relationships: unknown[] } =>
  isObj(v) && keysAre(v, ['nodes', 'relationships']) && Array.isArray(v.nodes) && Array.isArray(v.relationships);

export interface ResultGraph {
  nodes: Map<string, GraphNode>;
  relationships: Map<string, GraphRelationship>;
  /** Relationships left out because an end of theirs is not in the answer. */
  dangling: number;
}

/** Every node and relationship an answer holds, in paths, lists and maps too, each once. */
export function graphOf(rows: unknown[][]): ResultGraph {
  const nodes = new Map<string, GraphNode>();
  const found = new Map<string, GraphRelationship>();
  // An explicit stack, not recursion: a value may be nested deeply.
  const stack: unknown[] = [rows];
  while (stack.length > 0) {
    const v = stack.pop();
    if (Array.isArray(v)) stack.push(...v);
    else if (isNode(v)) nodes.set(v.elementId, v);
    else if (isRelationship(v)) found.set(v.elementId, v);
    else if (isPath(v)) stack.push(v.nodes, v.relationships);
    else if (isObj(v)) stack.push(...Object.values(v));
  }
  const relationships = new Map([...found].filter(([, r]) => nodes.has(r.startElementId) && nodes.has(r.endElementId)));
  return { nodes, relationships, dangling: found.size - relationships.size };
}

const props = (p: Record<string, unknown>) => (Object.keys(p).length ? ` ${JSON.stringify(p)}` : '');

/** One cell of the table: nodes and relationships in Cypher's own notation, other structures as JSON. */
export function cellText(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return v;
  if (isNode(v)) return `(${v.labels.map((l) => `:${l}`).join('')}${props(v.properties)})`;
  if (isRelationship(v)) return `[:${v.type}${props(v.properties)}]`;
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** What a node is called in the graph: a name-like property when it has one. */
export function nodeCaption(n: GraphNode): string {
  for (const key of ['title', 'name', 'slug', 'id']) {
    const v = n.properties[key];
    if (typeof v === 'string' && v) return v;
  }
  return n.labels[0] ?? n.elementId;
}
