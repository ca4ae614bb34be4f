import Graph, { MultiDirectedGraph } from 'graphology';
import type { GraphModel } from '../calls.ts';
import { type ResultGraph, nodeCaption } from '../pages/CypherValues.ts';
import { clusterColours, linkStyles, otherClusterColour, paler, typeColours, unlinkedColour } from './styles.ts';

/** The graphology graphs the views draw: the workspace's graph from the API's model, and a Cypher answer's nodes and relationships. */

/**
 * The one type every context node of the model has, when there are several nodes and they share it: colour by
 * type then tells nothing, and the view colours by cluster instead.
 */
export function uniformNodeType(model: GraphModel): string | null {
  const types = new Set<string>();
  let count = 0;
  for (const node of model.nodes) {
    if (node.kind !== 'node') continue;
    count++;
    types.add(node.nodeType ?? 'reference');
    if (types.size > 1) return null;
  }
  return count > 1 ? [...types][0] : null;
}

/** Node radius in pixels by degree (links in and out): a square-root scale over a floor, smaller on big graphs. */
function radiusScale(order: number): (degree: number) => number {
  const base = order > 2000 ? 1.5 : order > 300 ? 2.5 : order > 50 ? 3.5 : 5;
  const max = order > 2000 ? 10 : order > 300 ? 12 : order > 50 ? 14 : 20;
  return (degree) => Math.min(max, base + Math.sqrt(degree) * base * 0.8);
}

/** How many nodes are hubs (labelled without hovering): every node of a small graph, else the top ~5% by degree, at most 40. */
const hubCount = (order: number) => (order <= 40 ? order : Math.min(40, Math.max(8, Math.ceil(order * 0.05))));

/**
 * A graphology graph from the API's model: node colour by type, radius by degree, hubs labelled, links styled by
 * type (thin lines on big graphs). Positions are a placeholder until the layout worker's first frame.
 */
export function workspaceGraph(model: GraphModel): Graph {
  const graph = new Graph({ multi: true, type: 'directed', allowSelfLoops: true });
  const n = model.nodes.length;
  const degree = new Map<string, number>(model.nodes.map((node) => [node.id, 0]));
  for (const link of model.links) {
    if (link.from === link.to || !degree.has(link.from) || !degree.has(link.to)) continue;
    degree.set(link.from, degree.get(link.from)! + 1);
    degree.set(link.to, degree.get(link.to)! + 1);
  }
  // Hubs: most links first, then playbooks, then importance.
  const ranked = model.nodes
    .filter((node) => n <= 40 || degree.get(node.id)! >= 2)
    .sort((a, b) => degree.get(b.id)! - degree.get(a.id)! || Number(b.kind === 'playbook') - Number(a.kind === 'playbook') || (b.importance ?? 50) - (a.importance ?? 50));
  const hubs = new Map(ranked.slice(0, hubCount(n)).map((node, i) => [node.id, i]));
  const radius = radiusScale(n);
  model.nodes.forEach((node, i) => {
    const angle = i * 2.399963;
    const nodeType = node.kind === 'playbook' ? 'playbook' : (node.nodeType ?? 'reference');
    const d = degree.get(node.id)!;
    const hubRank = hubs.get(node.id);
    graph.addNode(node.id, {
      x: Math.cos(angle) * Math.sqrt(i + 1),
      y: Math.sin(angle) * Math.sqrt(i + 1),
      label: node.title,
      kind: node.kind,
      slug: node.slug,
      nodeType,
      status: node.status,
      importance: node.importance ?? 50,
      degree: d,
      hub: hubRank !== undefined,
      // Hub labels are drawn first by rank: the more links, the sooner.
      labelPriority: hubRank === undefined ? 0 : 2 + (hubs.size - hubRank) / (hubs.size + 1),
      forceLabel: hubRank !== undefined,
      size: node.kind === 'playbook' ? Math.max(radius(d), radius(4)) : radius(d),
      zIndex: hubRank === undefined ? 0 : 1,
      color: typeColours[nodeType] ?? '#555555',
    });
  });
  graph.setAttribute('colourBy', uniformNodeType(model) === null ? 'type' : 'cluster');
  const dense = model.links.length > 3000;
  for (const link of model.links) {
    if (!graph.hasNode(link.from) || !graph.hasNode(link.to)) continue;
    const style = linkStyles[link.type] ?? linkStyles.references;
    graph.addDirectedEdgeWithKey(link.id, link.from, link.to, {
      linkType: link.type,
      // Thousands of arrowheads are noise: big graphs get hairlines in paler colours, so clusters and hubs show
      // through (opaque: sigma's canvases do not blend translucent colours with the page).
      color: dense ? paler(style.color) : style.color,
      size: dense ? 1 : style.size,
      type: dense ? 'hairline' : style.type,
    });
  }
  return graph;
}

/** A coloured cluster of the legend: its colour, how many notes it holds, and its best-linked note's title. */
export interface Cluster {
  colour: string;
  size: number;
  hub: string;
}

/** The legend of a graph coloured by cluster. */
export interface Clusters {
  coloured: Cluster[];
  /** Notes in the smaller clusters, all in one grey. */
  others: number;
  /** Notes without any link. */
  unlinked: number;
}

/**
 * Colours the notes by their community (the layout worker's, one number per node in the graph's order: the biggest
 * first, -1 for a note without links); playbooks keep theirs. Each node keeps its number as `cluster`.
 */
export function colourByCluster(graph: Graph, communities: Int32Array): Clusters {
  const coloured: (Cluster & { degree: number })[] = [];
  let others = 0;
  let unlinked = 0;
  let i = 0;
  graph.forEachNode((id, attributes) => {
    const c = communities[i++] ?? -1;
    graph.setNodeAttribute(id, 'cluster', c);
    if (attributes.kind === 'playbook') return;
    if (c < 0) {
      unlinked++;
      graph.setNodeAttribute(id, 'color', unlinkedColour);
    } else if (c < clusterColours.length) {
      const cluster = (coloured[c] ??= { colour: clusterColours[c], size: 0, hub: '', degree: -1 });
      cluster.size++;
      if (attributes.degree > cluster.degree) Object.assign(cluster, { hub: attributes.label, degree: attributes.degree });
      graph.setNodeAttribute(id, 'color', cluster.colour);
    } else {
      others++;
      graph.setNodeAttribute(id, 'color', otherClusterColour);
    }
  });
  return { coloured: coloured.filter(Boolean).map(({ colour, size, hub }) => ({ colour, size, hub })), others, unlinked };
}

/** A Cypher answer's nodes coloured by their first label, sized by degree, and its relationships; not yet laid out. */
export function answerGraph(result: ResultGraph, colours: Map<string, string>): MultiDirectedGraph {
  const graph = new MultiDirectedGraph();
  for (const n of result.nodes.values()) {
    graph.addNode(n.elementId, { label: nodeCaption(n), color: colours.get(n.labels[0] ?? ''), size: 6, x: 0, y: 0 });
  }
  for (const r of result.relationships.values()) {
    graph.addDirectedEdgeWithKey(r.elementId, r.startElementId, r.endElementId, { label: r.type, color: '#8a8a8a', size: 1.5 });
  }
  graph.forEachNode((id) => graph.setNodeAttribute(id, 'size', 5 + Math.min(10, Math.sqrt(graph.degree(id)) * 2)));
  return graph;
}
