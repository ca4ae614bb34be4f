/// <reference lib="webworker" />
import { UndirectedGraph } from 'graphology';
import louvain from 'graphology-communities-louvain';
import forceAtlas2 from 'graphology-layout-forceatlas2';
import noverlap from 'graphology-layout-noverlap';

/**
 * The graph view's layout, off the main thread. It gets the node count and the links as pairs of node indexes,
 * and answers with positions (x, y per node, in the order given) twice: first a seed in which every cluster
 * already sits apart, then, when the page says it has drawn the seed, the refined layout (`final`). Refining
 * only then leaves the processor to the first frame (software WebGL on two cores draws slower while this runs).
 *
 * 1. Linked notes are split into communities (Louvain, graphology-communities-louvain).
 * 2. The communities are laid out as discs, one per community, sized by their node count and pulled together by
 *    the links between them (ForceAtlas2 with node sizes, then Noverlap so that no two discs overlap).
 * 3. Each community's nodes start on its disc, the best linked in the middle: the seed.
 * 4. ForceAtlas2 inside each community refines it; then Noverlap moves the communities, at the size they have
 *    taken, apart where they overlap, so clusters stay visible.
 * 5. Notes without any link (degree 0) go on rings around the rest, where they cannot hide the structure.
 */

export interface LayoutRequest {
  /** Number of nodes; nodes are 0 … n-1. */
  n: number;
  /** Links as consecutive pairs (source, target) of node indexes; direction, repeats and self-links are ignored. */
  links: Uint32Array;
}

export interface LayoutFrame {
  /** x, y of each node, in the order of the request. */
  positions: Float32Array;
  /**
   * In the seed only: each node's community (step 1), numbered from the biggest (0) down, or -1 for a node without
   * links. The view colours by it when the node types cannot tell notes apart.
   */
  communities?: Int32Array;
  /** The last frame: the layout is done. */
  final: boolean;
}

/** A small deterministic generator for Louvain's random order: the same graph gets the same picture. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

/** Spacing of nodes on a community's disc, in layout units. */
const spacing = 0.6;
const golden = Math.PI * (3 - Math.sqrt(5));

/** Positions of every node: the linked ones as laid out, the isolated ones on rings around them. */
function frame(n: number, linked: Int32Array, lx: Float64Array, ly: Float64Array, isolated: number[]): Float32Array {
  const positions = new Float32Array(n * 2);
  let cx = 0;
  let cy = 0;
  for (let k = 0; k < linked.length; k++) {
    cx += lx[k];
    cy += ly[k];
    positions[linked[k] * 2] = lx[k];
    positions[linked[k] * 2 + 1] = ly[k];
  }
  cx /= linked.length || 1;
  cy /= linked.length || 1;
  let radius = 0;
  for (let k = 0; k < linked.length; k++) radius = Math.max(radius, Math.hypot(lx[k] - cx, ly[k] - cy));
  // As far apart on the rings as linked nodes are on average, the first ring clear of the farthest linked node.
  const gap = linked.length > 1 ? Math.max(radius / Math.sqrt(linked.length), 1e-3) * 1.5 : 1;
  let r = radius + gap * 3;
  let placed = 0;
  let turn = 0;
  while (placed < isolated.length) {
    const count = Math.min(Math.max(6, Math.floor((2 * Math.PI * r) / gap)), isolated.length - placed);
    for (let k = 0; k < count; k++) {
      const a = (k / count) * 2 * Math.PI + turn;
      const v = isolated[placed + k];
      positions[v * 2] = cx + Math.cos(a) * r;
      positions[v * 2 + 1] = cy + Math.sin(a) * r;
    }
    placed += count;
    r += gap;
    turn += golden;
  }
  return positions;
}

/**
 * The whole layout in two steps: `seed` answers at once with every cluster on its own disc; `refine` (called when
 * the page has drawn the seed, so that the two do not compete for the processor) settles it.
 */
export function layout({ n, links }: LayoutRequest): { seed: LayoutFrame; refine: () => LayoutFrame } {
  // The linked notes' graph, keyed by their index: without self-links or repeats.
  const g = new UndirectedGraph();
  for (let e = 0; e + 1 < links.length; e += 2) {
    const s = links[e];
    const t = links[e + 1];
    if (s !== t && s < n && t < n) g.mergeEdge(s, t);
  }
  const linked = Int32Array.from(g.nodes(), Number).sort();
  const index = new Int32Array(n).fill(-1);
  linked.forEach((i, k) => (index[i] = k));
  const isolated: number[] = [];
  for (let i = 0; i < n; i++) if (index[i] < 0) isolated.push(i);
  const L = linked.length;
  const lx = new Float64Array(L);
  const ly = new Float64Array(L);
  if (L === 0) {
    const only = frame(n, linked, lx, ly, isolated);
    return { seed: { positions: only, communities: new Int32Array(n).fill(-1), final: true }, refine: () => ({ positions: only.slice(), final: true }) };
  }
  const at = (key: string) => index[Number(key)];

  // 1–2. Communities, numbered from 0 in the order of the notes, laid out as discs.
  const found = louvain(g, { rng: random(0x5eed) });
  const number = new Map<number, number>();
  const of = Int32Array.from(linked, (i) => {
    const c = found[i];
    if (!number.has(c)) number.set(c, number.size);
    return number.get(c)!;
  });
  const count = number.size;
  const size = new Float64Array(count);
  for (let k = 0; k < L; k++) size[of[k]]++;
  // The graph of communities: a disc each (x, y and size, its radius), its links weighted by how many links
  // between notes they stand for. Biggest first on a spiral, so that the start is compact and the biggest central.
  const biggestFirst = Array.from({ length: count }, (_, c) => c).sort((a, b) => size[b] - size[a]);
  let area = 0;
  const cg = new UndirectedGraph();
  biggestFirst.forEach((c, k) => {
    const r = Math.sqrt(area + size[c] / 2) * spacing * 2;
    cg.addNode(c, { x: Math.cos(k * golden) * r, y: Math.sin(k * golden) * r, size: Math.sqrt(size[c]) * spacing });
    area += size[c];
  });
  g.forEachEdge((_e, _a, s, t) => {
    const a = of[at(s)];
    const b = of[at(t)];
    if (a !== b) cg.updateEdge(a, b, (attr) => ({ weight: (attr.weight ?? 0) + 1 }));
  });
  if (count > 1) {
    // ForceAtlas2 with sizes pulls linked discs together while keeping them from piling up; its collisions are
    // soft, so Noverlap then pushes apart whatever still overlaps, a node's spacing clear.
    forceAtlas2.assign(cg, { iterations: count > 500 ? 80 : 150, settings: { adjustSizes: true, gravity: 0.5, scalingRatio: 0.3 } });
    noverlap.assign(cg, { maxIterations: 200, settings: { margin: spacing / 2, ratio: 1, speed: 1 } });
  }
  const cx = Float64Array.from({ length: count }, (_, c) => cg.getNodeAttribute(c, 'x'));
  const cy = Float64Array.from({ length: count }, (_, c) => cg.getNodeAttribute(c, 'y'));

  // 3. The seed: each community's nodes on its disc, the best linked in the middle.
  const members: number[][] = Array.from({ length: count }, () => []);
  for (let k = 0; k < L; k++) members[of[k]].push(k);
  for (let c = 0; c < count; c++) {
    members[c].sort((a, b) => g.degree(linked[b]) - g.degree(linked[a]));
    members[c].forEach((k, j) => {
      const a = j * golden + c;
      const r = Math.sqrt(j) * spacing;
      lx[k] = cx[c] + Math.cos(a) * r;
      ly[k] = cy[c] + Math.sin(a) * r;
    });
  }
  const place = new Int32Array(count);
  biggestFirst.forEach((c, k) => (place[c] = k));
  const communities = new Int32Array(n).fill(-1);
  for (let k = 0; k < L; k++) communities[linked[k]] = place[of[k]];
  const seed: LayoutFrame = { positions: frame(n, linked, lx, ly, isolated), communities, final: false };

  // 4. Refinement, each community on its own graph around its centre (ForceAtlas2's gravity pulls to the origin).
  //    Then the communities, as big as they have become, are moved apart where they overlap.
  // 5. The rings again.
  const refine = (): LayoutFrame => {
    const parts = Array.from({ length: count }, () => new UndirectedGraph());
    for (let k = 0; k < L; k++) parts[of[k]].addNode(k, { x: lx[k] - cx[of[k]], y: ly[k] - cy[of[k]], size: spacing * 0.4 });
    g.forEachEdge((_e, _a, s, t) => {
      const a = at(s);
      const b = at(t);
      if (of[a] === of[b]) parts[of[a]].addEdge(a, b);
    });
    const iterations = L > 2000 ? 25 : L > 300 ? 40 : 80;
    parts.forEach((part, c) => {
      if (part.order < 2) return;
      // Sizes keep nodes from covering each other; this repulsion and gravity keep the community about the size of
      // its seed disc, so that the picture does not jump. Barnes-Hut only pays off on very big communities.
      forceAtlas2.assign(part, { iterations, settings: { adjustSizes: true, scalingRatio: 0.01, gravity: 0.2, barnesHutOptimize: part.order > 2000 } });
      part.forEachNode((key, p) => {
        lx[Number(key)] = p.x + cx[c];
        ly[Number(key)] = p.y + cy[c];
      });
    });
    if (count > 1) {
      const mx = new Float64Array(count);
      const my = new Float64Array(count);
      const reach = new Float64Array(count);
      for (let k = 0; k < L; k++) {
        mx[of[k]] += lx[k] / size[of[k]];
        my[of[k]] += ly[k] / size[of[k]];
      }
      for (let k = 0; k < L; k++) reach[of[k]] = Math.max(reach[of[k]], Math.hypot(lx[k] - mx[of[k]], ly[k] - my[of[k]]) + spacing);
      // Each community's disc is now its centre and its reach; Noverlap's moves are carried over to its nodes.
      cg.updateEachNodeAttributes((key, attr) => ({ ...attr, x: mx[Number(key)], y: my[Number(key)], size: reach[Number(key)] }));
      noverlap.assign(cg, { maxIterations: 200, settings: { margin: spacing * 1.5, ratio: 1, speed: 1 } });
      cg.forEachNode((key, p) => {
        const c = Number(key);
        mx[c] = p.x - mx[c];
        my[c] = p.y - my[c];
      });
      for (let k = 0; k < L; k++) {
        lx[k] += mx[of[k]];
        ly[k] += my[of[k]];
      }
    }
    return { positions: frame(n, linked, lx, ly, isolated), final: true };
  };
  return { seed, refine };
}

/** Messages to the worker: the graph to lay out, then (once the seed is drawn) the go-ahead to refine it. */
export type LayoutMessage = ({ kind: 'layout' } & LayoutRequest) | { kind: 'refine' };

if (typeof WorkerGlobalScope !== 'undefined' && self instanceof WorkerGlobalScope) {
  const post = (f: LayoutFrame) => (self as unknown as Worker).postMessage(f, [f.positions.buffer, ...(f.communities ? [f.communities.buffer] : [])]);
  let refine: (() => LayoutFrame) | null = null;
  self.onmessage = (event: MessageEvent<LayoutMessage>) => {
    const message = event.data;
    if (message.kind === 'layout') {
      const answer = layout(message);
      refine = answer.seed.final ? null : answer.refine;
      post(answer.seed);
    } else if (refine) {
      post(refine());
      refine = null;
    }
  };
}
