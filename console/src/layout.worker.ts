/// <reference lib="webworker" />

/**
 * The graph view's layout, off the main thread. It gets the node count and the links as pairs of node indexes,
 * and answers with positions (x, y per node, in the order given) twice: first a seed in which every cluster
 * already sits apart, then, when the page says it has drawn the seed, the refined layout (`final`). Refining
 * only then leaves the processor to the first frame (software WebGL on two cores draws slower while this runs).
 *
 * 1. Linked notes are split into communities (Louvain: modularity, a few levels).
 * 2. The communities are laid out as discs, one per community, sized by their node count and pulled together by
 *    the links between them (a force layout with collisions).
 * 3. Each community's nodes start on its disc, the best linked in the middle: the seed.
 * 4. A force layout inside each community (Barnes-Hut repulsion, its links as springs) refines it; then the
 *    communities, at the size they have taken, are moved apart where they overlap, so clusters stay visible.
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
  /** The last frame: the layout is done. */
  final: boolean;
}

/** Undirected graph in compressed rows: the neighbours of i are targets[offsets[i] … offsets[i+1]). */
interface Csr {
  n: number;
  offsets: Int32Array;
  targets: Int32Array;
  weights: Float64Array;
  /** Weight of a node's own loop (communities folded into one node keep their inner weight here). */
  self: Float64Array;
}

/** A small deterministic generator: the same graph gets the same picture. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

function shuffle(list: number[], rnd: () => number): void {
  for (let i = list.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [list[i], list[j]] = [list[j], list[i]];
  }
}

function toCsr(n: number, a: ArrayLike<number>, b: ArrayLike<number>, w: ArrayLike<number>, self = new Float64Array(n)): Csr {
  const offsets = new Int32Array(n + 1);
  for (let e = 0; e < a.length; e++) {
    offsets[a[e] + 1]++;
    offsets[b[e] + 1]++;
  }
  for (let i = 0; i < n; i++) offsets[i + 1] += offsets[i];
  const fill = offsets.slice(0, n);
  const targets = new Int32Array(offsets[n]);
  const weights = new Float64Array(offsets[n]);
  for (let e = 0; e < a.length; e++) {
    targets[fill[a[e]]] = b[e];
    weights[fill[a[e]]++] = w[e];
    targets[fill[b[e]]] = a[e];
    weights[fill[b[e]]++] = w[e];
  }
  return { n, offsets, targets, weights, self };
}

/** The links as an undirected graph without self-links or repeats, each of weight 1. */
function simpleGraph(n: number, links: ArrayLike<number>): Csr {
  const seen = new Set<number>();
  const a: number[] = [];
  const b: number[] = [];
  for (let e = 0; e + 1 < links.length; e += 2) {
    const s = links[e];
    const t = links[e + 1];
    if (s === t || s >= n || t >= n) continue;
    const key = s < t ? s * n + t : t * n + s;
    if (seen.has(key)) continue;
    seen.add(key);
    a.push(s);
    b.push(t);
  }
  return toCsr(n, a, b, new Float64Array(a.length).fill(1));
}

/** Louvain communities: the community of each node, numbered from 0, and how many there are. */
function communities(g0: Csr, rnd: () => number): { of: Int32Array; count: number } {
  const of = Int32Array.from({ length: g0.n }, (_, i) => i);
  let count = g0.n;
  let g = g0;
  for (let level = 0; level < 5; level++) {
    const { n, offsets, targets, weights, self } = g;
    const k = new Float64Array(n);
    let m2 = 0;
    for (let i = 0; i < n; i++) {
      let s = self[i];
      for (let p = offsets[i]; p < offsets[i + 1]; p++) s += weights[p];
      k[i] = s;
      m2 += s;
    }
    if (m2 === 0) break;
    // Local moves: each node joins the neighbouring community that gains the most modularity.
    const comm = Int32Array.from({ length: n }, (_, i) => i);
    const tot = Float64Array.from(k);
    const toComm = new Float64Array(n);
    const touched: number[] = [];
    const order = Array.from({ length: n }, (_, i) => i);
    shuffle(order, rnd);
    let movedAny = false;
    for (let pass = 0; pass < 10; pass++) {
      let moved = 0;
      for (const i of order) {
        if (offsets[i] === offsets[i + 1]) continue;
        const old = comm[i];
        for (let p = offsets[i]; p < offsets[i + 1]; p++) {
          const c = comm[targets[p]];
          if (toComm[c] === 0) touched.push(c);
          toComm[c] += weights[p];
        }
        tot[old] -= k[i];
        let best = old;
        let bestGain = toComm[old] - (tot[old] * k[i]) / m2;
        for (const c of touched) {
          const gain = toComm[c] - (tot[c] * k[i]) / m2;
          if (gain > bestGain + 1e-12) {
            best = c;
            bestGain = gain;
          }
        }
        for (const c of touched) toComm[c] = 0;
        touched.length = 0;
        tot[best] += k[i];
        if (best !== old) {
          comm[i] = best;
          moved++;
        }
      }
      if (moved === 0) break;
      movedAny = true;
      if (moved < n * 0.005) break;
    }
    if (!movedAny) break;
    // Renumber, then fold each community into one node for the next level.
    const number = new Int32Array(n).fill(-1);
    count = 0;
    for (let i = 0; i < n; i++) if (number[comm[i]] < 0) number[comm[i]] = count++;
    for (let v = 0; v < of.length; v++) of[v] = number[comm[of[v]]];
    if (count === n) break;
    const selfNext = new Float64Array(count);
    const between = new Map<number, number>();
    for (let i = 0; i < n; i++) {
      const a = number[comm[i]];
      selfNext[a] += self[i];
      for (let p = offsets[i]; p < offsets[i + 1]; p++) {
        const b = number[comm[targets[p]]];
        if (a === b) selfNext[a] += weights[p];
        else if (a < b) between.set(a * count + b, (between.get(a * count + b) ?? 0) + weights[p]);
      }
    }
    const ea: number[] = [];
    const eb: number[] = [];
    const ew: number[] = [];
    for (const [key, w] of between) {
      ea.push(Math.floor(key / count));
      eb.push(key % count);
      ew.push(w);
    }
    g = toCsr(count, ea, eb, ew, selfNext);
  }
  return { of, count };
}

interface ForceSettings {
  iterations: number;
  /** Repulsion between two nodes: repulsion × mass × mass / distance. */
  repulsion: number;
  /** A constant pull towards the origin, × mass. */
  gravity: number;
  /** The most a node moves in one iteration, cooling geometrically from startStep to endStep. */
  startStep: number;
  endStep: number;
  /** Radii: nodes closer than the sum of their radii push each other hard (used for communities' discs). */
  radii?: Float64Array;
  /** Barnes-Hut accuracy: a cell is taken as one body when its width / distance < theta. */
  theta?: number;
}

/**
 * A ForceAtlas2-like model: nodes repel in proportion to their masses (Barnes-Hut quadtree), links are springs
 * of their weight, gravity keeps everything together.
 */
function forces(g: Csr, x: Float64Array, y: Float64Array, mass: Float64Array, o: ForceSettings): void {
  const n = g.n;
  if (n === 0) return;
  const fx = new Float64Array(n);
  const fy = new Float64Array(n);
  const theta2 = (o.theta ?? 1) ** 2;
  // The quadtree in flat arrays: a cell has four children (-1 when none) or holds one node (leaf ≥ 0).
  const cap = 4 * n + 16;
  const child = new Int32Array(cap * 4);
  const leaf = new Int32Array(cap);
  const cellMass = new Float64Array(cap);
  const cellX = new Float64Array(cap);
  const cellY = new Float64Array(cap);
  const half = new Float64Array(cap);
  const midX = new Float64Array(cap);
  const midY = new Float64Array(cap);
  const stack = new Int32Array(cap);
  const { offsets, targets, weights } = g;
  const radii = o.radii;
  const kr = o.repulsion;
  let cells = 0;
  const newCell = (parent: number, quadrant: number, node: number): number => {
    const c = cells++;
    child.fill(-1, c * 4, c * 4 + 4);
    leaf[c] = node;
    cellMass[c] = node >= 0 ? mass[node] : 0;
    cellX[c] = node >= 0 ? x[node] : 0;
    cellY[c] = node >= 0 ? y[node] : 0;
    if (parent >= 0) {
      half[c] = half[parent] / 2;
      midX[c] = midX[parent] + (quadrant & 1 ? half[c] : -half[c]);
      midY[c] = midY[parent] + (quadrant & 2 ? half[c] : -half[c]);
      child[parent * 4 + quadrant] = c;
    }
    return c;
  };

  for (let it = 0; it < o.iterations; it++) {
    fx.fill(0);
    fy.fill(0);
    // Build the tree.
    let minX = Infinity;
    let minY = Infinity;
    let maxX = -Infinity;
    let maxY = -Infinity;
    for (let i = 0; i < n; i++) {
      if (x[i] < minX) minX = x[i];
      if (x[i] > maxX) maxX = x[i];
      if (y[i] < minY) minY = y[i];
      if (y[i] > maxY) maxY = y[i];
    }
    cells = 0;
    newCell(-1, 0, -1);
    half[0] = Math.max(maxX - minX, maxY - minY) / 2 + 1e-6;
    midX[0] = (minX + maxX) / 2;
    midY[0] = (minY + maxY) / 2;
    for (let i = 0; i < n; i++) {
      let c = 0;
      for (let depth = 0; ; depth++) {
        const before = cellMass[c];
        const m = before + mass[i];
        cellX[c] = (cellX[c] * before + x[i] * mass[i]) / m;
        cellY[c] = (cellY[c] * before + y[i] * mass[i]) / m;
        cellMass[c] = m;
        if (before === 0 && leaf[c] < 0) {
          leaf[c] = i;
          break;
        }
        // Nodes on top of each other (or a full tree) share the cell.
        if (depth > 30 || cells > cap - 2) break;
        if (leaf[c] >= 0) {
          const resident = leaf[c];
          leaf[c] = -1;
          newCell(c, (x[resident] > midX[c] ? 1 : 0) + (y[resident] > midY[c] ? 2 : 0), resident);
        }
        const q = (x[i] > midX[c] ? 1 : 0) + (y[i] > midY[c] ? 2 : 0);
        const next = child[c * 4 + q];
        if (next < 0) {
          newCell(c, q, i);
          break;
        }
        c = next;
      }
    }
    // Repulsion.
    for (let i = 0; i < n; i++) {
      let sp = 0;
      stack[sp++] = 0;
      while (sp > 0) {
        const c = stack[--sp];
        if (leaf[c] === i) continue;
        const dx = x[i] - cellX[c];
        const dy = y[i] - cellY[c];
        const d2 = dx * dx + dy * dy;
        const width = half[c] * 2;
        if (leaf[c] >= 0 || width * width < theta2 * d2) {
          if (d2 === 0) {
            // Exactly on top of each other: a nudge apart.
            fx[i] += (i % 7) - 3;
            fy[i] += (i % 5) - 2;
          } else if (radii && leaf[c] >= 0) {
            const j = leaf[c];
            const d = Math.sqrt(d2);
            const gap = d - radii[i] - radii[j];
            const f = gap > 0 ? (kr * mass[i] * mass[j]) / (gap * d) : (100 * kr * mass[i] * mass[j]) / d;
            fx[i] += dx * f;
            fy[i] += dy * f;
          } else {
            const f = (kr * mass[i] * cellMass[c]) / d2;
            fx[i] += dx * f;
            fy[i] += dy * f;
          }
          continue;
        }
        for (let q = 0; q < 4; q++) {
          const ch = child[c * 4 + q];
          if (ch >= 0) stack[sp++] = ch;
        }
      }
    }
    // Links pull their ends together.
    for (let i = 0; i < n; i++) {
      for (let p = offsets[i]; p < offsets[i + 1]; p++) {
        const j = targets[p];
        if (j < i) continue;
        const dx = (x[i] - x[j]) * weights[p];
        const dy = (y[i] - y[j]) * weights[p];
        fx[i] -= dx;
        fy[i] -= dy;
        fx[j] += dx;
        fy[j] += dy;
      }
    }
    // Gravity, then each node moves at most `step`.
    const step = o.startStep * (o.endStep / o.startStep) ** (it / Math.max(1, o.iterations - 1));
    for (let i = 0; i < n; i++) {
      const d = Math.sqrt(x[i] * x[i] + y[i] * y[i]);
      if (d > 0) {
        fx[i] -= (o.gravity * mass[i] * x[i]) / d;
        fy[i] -= (o.gravity * mass[i] * y[i]) / d;
      }
      let mx = fx[i] / mass[i];
      let my = fy[i] / mass[i];
      const len = Math.sqrt(mx * mx + my * my);
      if (len > step) {
        mx *= step / len;
        my *= step / len;
      }
      x[i] += mx;
      y[i] += my;
    }
  }
}

/** Discs that overlap are pushed apart (the lighter one further) until none does, or after 50 sweeps. */
function separate(x: Float64Array, y: Float64Array, r: Float64Array, weight: Float64Array, gap: number): void {
  const n = x.length;
  const order = Array.from({ length: n }, (_, i) => i);
  let maxR = 0;
  for (let i = 0; i < n; i++) maxR = Math.max(maxR, r[i]);
  for (let sweep = 0; sweep < 50; sweep++) {
    order.sort((a, b) => x[a] - x[b]);
    let moved = false;
    for (let p = 0; p < n; p++) {
      const i = order[p];
      for (let q = p + 1; q < n; q++) {
        const j = order[q];
        if (x[j] - x[i] > r[i] + maxR + gap) break;
        const dx = x[j] - x[i];
        const dy = y[j] - y[i];
        const d = Math.sqrt(dx * dx + dy * dy) || 1e-6;
        const overlap = r[i] + r[j] + gap - d;
        if (overlap <= 0) continue;
        moved = true;
        const share = weight[i] / (weight[i] + weight[j]);
        x[i] -= (dx / d) * overlap * (1 - share);
        y[i] -= (dy / d) * overlap * (1 - share);
        x[j] += (dx / d) * overlap * share;
        y[j] += (dy / d) * overlap * share;
      }
    }
    if (!moved) break;
  }
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
  const rnd = random(0x5eed);
  const all = simpleGraph(n, links);
  const linkedList: number[] = [];
  const isolated: number[] = [];
  const index = new Int32Array(n).fill(-1);
  for (let i = 0; i < n; i++) {
    if (all.offsets[i + 1] > all.offsets[i]) {
      index[i] = linkedList.length;
      linkedList.push(i);
    } else isolated.push(i);
  }
  const linked = Int32Array.from(linkedList);
  const L = linked.length;
  const lx = new Float64Array(L);
  const ly = new Float64Array(L);
  if (L === 0) {
    const only = frame(n, linked, lx, ly, isolated);
    return { seed: { positions: only, final: true }, refine: () => ({ positions: only.slice(), final: true }) };
  }
  // The linked nodes' own graph.
  const la: number[] = [];
  const lb: number[] = [];
  for (let k = 0; k < L; k++) {
    const i = linked[k];
    for (let p = all.offsets[i]; p < all.offsets[i + 1]; p++) {
      if (all.targets[p] > i) {
        la.push(k);
        lb.push(index[all.targets[p]]);
      }
    }
  }
  const g = toCsr(L, la, lb, new Float64Array(la.length).fill(1));
  const degree = (k: number) => g.offsets[k + 1] - g.offsets[k];

  // 1–2. Communities, laid out as discs.
  const { of, count } = communities(g, rnd);
  const size = new Float64Array(count);
  for (let k = 0; k < L; k++) size[of[k]]++;
  const between = new Map<number, number>();
  for (let k = 0; k < L; k++) {
    for (let p = g.offsets[k]; p < g.offsets[k + 1]; p++) {
      const a = of[k];
      const b = of[g.targets[p]];
      if (a < b) between.set(a * count + b, (between.get(a * count + b) ?? 0) + 1);
    }
  }
  const ca: number[] = [];
  const cb: number[] = [];
  const cw: number[] = [];
  for (const [key, w] of between) {
    ca.push(Math.floor(key / count));
    cb.push(key % count);
    cw.push(w);
  }
  const cg = toCsr(count, ca, cb, cw);
  const cx = new Float64Array(count);
  const cy = new Float64Array(count);
  const radii = Float64Array.from(size, (s) => Math.sqrt(s) * spacing);
  const biggestFirst = Array.from({ length: count }, (_, c) => c).sort((a, b) => size[b] - size[a]);
  let area = 0;
  biggestFirst.forEach((c, k) => {
    const r = Math.sqrt(area + size[c] / 2) * spacing * 2;
    cx[c] = Math.cos(k * golden) * r;
    cy[c] = Math.sin(k * golden) * r;
    area += size[c];
  });
  if (count > 1) {
    forces(cg, cx, cy, size, { iterations: count > 500 ? 80 : 150, repulsion: 0.3, gravity: 0.5, startStep: Math.sqrt(L) * spacing * 0.5, endStep: 0.05, radii });
    separate(cx, cy, radii, size, spacing);
  }

  // 3. The seed: each community's nodes on its disc, the best linked in the middle.
  const members: number[][] = Array.from({ length: count }, () => []);
  for (let k = 0; k < L; k++) members[of[k]].push(k);
  for (let c = 0; c < count; c++) {
    members[c].sort((a, b) => degree(b) - degree(a));
    members[c].forEach((k, j) => {
      const a = j * golden + c;
      const r = Math.sqrt(j) * spacing;
      lx[k] = cx[c] + Math.cos(a) * r;
      ly[k] = cy[c] + Math.sin(a) * r;
    });
  }
  const seed = { positions: frame(n, linked, lx, ly, isolated), final: false };

  // 4. Refinement, each community on its own: its nodes repel each other and its links hold them, around its
  //    centre. Then the communities, as big as they have become, are moved apart where they overlap.
  // 5. The rings again.
  const refine = (): LayoutFrame => {
    const iterations = L > 2000 ? 25 : L > 300 ? 40 : 80;
    const at = new Int32Array(L);
    for (let c = 0; c < count; c++) members[c].forEach((k, j) => (at[k] = j));
    for (let c = 0; c < count; c++) {
      const list = members[c];
      if (list.length < 2) continue;
      const a: number[] = [];
      const b: number[] = [];
      for (const k of list) {
        for (let p = g.offsets[k]; p < g.offsets[k + 1]; p++) {
          const t = g.targets[p];
          if (t > k && of[t] === c) {
            a.push(at[k]);
            b.push(at[t]);
          }
        }
      }
      const x = Float64Array.from(list, (k) => lx[k] - cx[c]);
      const y = Float64Array.from(list, (k) => ly[k] - cy[c]);
      forces(toCsr(list.length, a, b, new Float64Array(a.length).fill(1)), x, y, new Float64Array(list.length).fill(1), { iterations, repulsion: 1, gravity: 0.05, startStep: 2, endStep: 0.05 });
      list.forEach((k, j) => {
        lx[k] = x[j] + cx[c];
        ly[k] = y[j] + cy[c];
      });
    }
    if (count > 1) {
      const mx = new Float64Array(count);
      const my = new Float64Array(count);
      const reach = new Float64Array(count);
      for (let k = 0; k < L; k++) {
        mx[of[k]] += lx[k] / size[of[k]];
        my[of[k]] += ly[k] / size[of[k]];
      }
      for (let k = 0; k < L; k++) reach[of[k]] = Math.max(reach[of[k]], Math.hypot(lx[k] - mx[of[k]], ly[k] - my[of[k]]) + spacing);
      const fromX = mx.slice();
      const fromY = my.slice();
      // Little repulsion now: the links between communities and gravity pack them, collisions keep them apart.
      forces(cg, mx, my, size, { iterations: 60, repulsion: 0.05, gravity: 0.5, startStep: Math.sqrt(L) * spacing * 0.2, endStep: 0.02, radii: reach });
      separate(mx, my, reach, size, spacing * 3);
      for (let k = 0; k < L; k++) {
        lx[k] += mx[of[k]] - fromX[of[k]];
        ly[k] += my[of[k]] - fromY[of[k]];
      }
    }
    return { positions: frame(n, linked, lx, ly, isolated), final: true };
  };
  return { seed, refine };
}

/** Messages to the worker: the graph to lay out, then (once the seed is drawn) the go-ahead to refine it. */
export type LayoutMessage = ({ kind: 'layout' } & LayoutRequest) | { kind: 'refine' };

if (typeof WorkerGlobalScope !== 'undefined' && self instanceof WorkerGlobalScope) {
  const post = (f: LayoutFrame) => (self as unknown as Worker).postMessage(f, [f.positions.buffer]);
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
