import { type GetBundleData, type LinkType, type NodeType, linkTypes } from '@sdk';
import { useQuery } from '@tanstack/react-query';
import Graph from 'graphology';
import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import Sigma from 'sigma';
import { EdgeLineProgram } from 'sigma/rendering';
import { Link, useLocation, useParams, useSearch } from 'wouter';
import { clientFor } from '../api.ts';
import { type GraphModel, getGraph } from '../calls.ts';
import type { LayoutFrame, LayoutMessage } from '../layout.worker.ts';
import { ErrorNote, Loading, PageTitle } from '../ui.tsx';

// Looked up by any string (with a fallback), and checked to name every node and link type of the API.
const typeColours: Record<string, string> = {
  playbook: '#111111',
  brand: '#c2185b',
  process: '#1565c0',
  reference: '#2e7d32',
  'domain-knowledge': '#6a1b9a',
  example: '#ef6c00',
  index: '#00838f',
} satisfies Record<NodeType | 'playbook', string>;
interface LinkStyle { color: string; size: number; type: 'arrow' | 'line' }
const linkStyles: Record<string, LinkStyle> = {
  requires: { color: '#b71c1c', size: 2.5, type: 'arrow' },
  references: { color: '#9e9e9e', size: 1, type: 'arrow' },
  'relates-to': { color: '#c5cae9', size: 1, type: 'line' },
  supersedes: { color: '#6a1b9a', size: 2, type: 'arrow' },
  'index-entry': { color: '#80cbc4', size: 1, type: 'line' },
} satisfies Record<LinkType, LinkStyle>;

declare global {
  interface Window {
    /** The graph model on screen (tests assert on it, never on pixels). */
    __consoleGraph?: Graph;
    /** ms from navigation start to the graph being interactive, per render. */
    __consoleGraphReadyMs?: number;
    /** What the graph view draws: where a node is on the page, which labels are shown (for tests). */
    __consoleGraphView?: GraphViewProbe;
  }
}

export interface GraphViewProbe {
  /** A node's centre in page coordinates and its radius in pixels, or null when it is not drawn. */
  node(id: string): { x: number; y: number; radius: number } | null;
  /** The labels the last frame drew, in drawing order: the node and the label's box within the graph's area. */
  labels(): { id: string; left: number; top: number; width: number; height: number }[];
  /** The node whose label the pointer shows, if any. */
  hoverLabel(): string | null;
}

/** A #rrggbb colour 70% of the way to white. */
const paler = (hex: string) => `#${[1, 3, 5].map((i) => Math.round(parseInt(hex.slice(i, i + 2), 16) * 0.3 + 255 * 0.7).toString(16).padStart(2, '0')).join('')}`;

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
function toGraph(model: GraphModel): Graph {
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

const labelFont = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
const labelSize = 12;
const clip = (text: string) => (text.length > 48 ? `${text.slice(0, 47)}…` : text);

interface Box { left: number; top: number; width: number; height: number }

/** A label's box beside its node: on the right, else on the left, kept inside the viewport. */
function labelBox(x: number, y: number, radius: number, width: number, view: { width: number; height: number }, side: 'right' | 'left'): Box {
  const height = labelSize + 4;
  let left = side === 'right' ? x + radius + 4 : x - radius - 4 - width;
  if (side === 'right' && left + width > view.width - 4) left = x - radius - 4 - width;
  if (side === 'left' && left < 4) left = x + radius + 4;
  left = Math.min(Math.max(4, left), Math.max(4, view.width - 4 - width));
  const top = Math.min(Math.max(2, y - height / 2), Math.max(2, view.height - 2 - height));
  return { left, top, width, height };
}

type View = { width: number; height: number };

/** Inside the view with its margins (a label drawn past an edge would be cut there). */
const inside = (b: Box, view: View) => b.left >= 4 && b.top >= 2 && b.left + b.width <= view.width - 4 && b.top + b.height <= view.height - 2;

/**
 * Where a label goes: beside its node (right, then left), else centred below or above it, each whole inside the
 * view and clear of the labels already placed; failing those, beside the node pushed inside the view (over the
 * node if it must), so that no label is ever cut at the graph's edge. Null when every place is taken.
 */
function placeLabel(x: number, y: number, radius: number, width: number, view: View, placed: Box[]): Box | null {
  const height = labelSize + 4;
  const centred = Math.min(Math.max(4, x - width / 2), Math.max(4, view.width - 4 - width));
  const candidates: Box[] = [
    { left: x + radius + 4, top: y - height / 2, width, height },
    { left: x - radius - 4 - width, top: y - height / 2, width, height },
    { left: centred, top: y + radius + 2, width, height },
    { left: centred, top: y - radius - 2 - height, width, height },
  ];
  const free = (b: Box) => !placed.some((p) => overlaps(p, b));
  const found = candidates.find((b) => inside(b, view) && free(b));
  if (found) return found;
  const pushed = [labelBox(x, y, radius, width, view, 'right'), labelBox(x, y, radius, width, view, 'left')];
  return pushed.find(free) ?? null;
}

const overlaps = (a: Box, b: Box) => a.left < b.left + b.width + 3 && b.left < a.left + a.width + 3 && a.top < b.top + b.height + 1 && b.top < a.top + a.height + 1;

interface Bundled {
  rank: number;
  id: string;
  title: string;
  reason: { kind: string; depth: number; fromId: string | null; openFeedback?: string[] };
  score: number;
}

type BundleMode = NonNullable<NonNullable<GetBundleData['query']>['mode']>;
/** The bundle's modes, as the API names them; tokenCount counts the texts each carries. */
const bundleModes: [BundleMode, string][] = [['standard', 'standard (content)'], ['summary', 'summary (agent summaries)'], ['full', 'full (content, description, summary)']];

interface PendingLabel { key: string; text: string; x: number; y: number; radius: number; priority: number; bold: boolean }

/** A layout worker started while the graph is fetched (loading its script takes a while), for the next graph view. */
let spareWorker: Worker | null = null;
const startLayoutWorker = () => new Worker(new URL('../layout.worker.ts', import.meta.url), { type: 'module' });
function prestartLayoutWorker(): void {
  try {
    spareWorker ??= startLayoutWorker();
  } catch {
    // The view starts its own, and falls back to drawing without a layout if that fails too.
  }
}
function takeLayoutWorker(): Worker {
  const worker = spareWorker ?? startLayoutWorker();
  spareWorker = null;
  return worker;
}

interface ViewRefs {
  hidden: { current: Set<string> };
  ranks: { current: Map<string, number> };
  marked: { current: Set<string> };
  open: { current: (id: string, kind: string) => void };
}

/**
 * Sigma on the graph, drawing its first frame. Labels are gathered while sigma renders, then drawn by priority
 * (selected and bundle nodes, hubs, the rest only when zoomed in), each inside the viewport and none over another.
 */
function createRenderer(graph: Graph, el: HTMLElement, refs: ViewRefs): Sigma {
  let pending: PendingLabel[] = [];
  let drawn: ({ id: string } & Box)[] = [];
  let hoverLabel: string | null = null;
  let pointerOn: string | null = null;
  /** Boxes of the highlighted (bundle) nodes' labels in this frame: other labels keep clear of them. */
  let highlighted = new Map<string, Box>();
  // Sigma draws a first frame inside its constructor, before `renderer` is set.
  let ratio = () => 1;
  let view = () => ({ width: el.clientWidth, height: el.clientHeight });
  const renderer: Sigma = new Sigma(graph, el, {
    renderEdgeLabels: false,
    defaultEdgeType: 'arrow',
    edgeProgramClasses: { hairline: EdgeLineProgram },
    zIndex: true,
    labelFont,
    labelSize,
    labelRenderedSizeThreshold: 0,
    hideEdgesOnMove: graph.size > 2000,
    defaultDrawNodeLabel: (_context, data) => {
      const d = data as typeof data & { key: string; labelPriority?: number };
      // A highlighted node's label is drawn boxed, on the hover layer (below).
      if (!d.label || d.highlighted) return;
      // Beyond hubs and selected nodes, labels come only once the view is zoomed in.
      if (!d.forceLabel && ratio() > 0.6) return;
      pending.push({ key: d.key, text: clip(d.label), x: d.x, y: d.y, radius: d.size, priority: d.forceLabel ? (d.labelPriority ?? 0) + 1 : d.size / 1000, bold: !!d.forceLabel });
    },
    defaultDrawNodeHover: (context, data) => {
      const d = data as typeof data & { key: string };
      // Sigma also draws here the node the pointer left the graph from (see leaveStage below): not that one.
      if (!d.label || (d.key !== pointerOn && !d.highlighted)) return;
      const text = clip(d.label);
      context.font = `600 ${labelSize}px ${labelFont}`;
      const box = placeLabel(d.x, d.y, d.size + 2, context.measureText(text).width + 8, view(), [])!;
      context.save();
      context.fillStyle = '#ffffff';
      context.shadowColor = 'rgba(0, 0, 0, 0.35)';
      context.shadowBlur = 6;
      context.beginPath();
      context.arc(d.x, d.y, d.size + 2, 0, Math.PI * 2);
      context.fill();
      context.fillRect(box.left, box.top - 1, box.width, box.height + 2);
      context.restore();
      context.fillStyle = '#111111';
      context.textBaseline = 'middle';
      context.fillText(text, box.left + 4, box.top + box.height / 2);
      if (d.key === pointerOn) hoverLabel = d.key;
      else highlighted.set(d.key, box);
    },
    nodeReducer: (node, data) => {
      if (refs.marked.current.has(node)) return { ...data, forceLabel: true, labelPriority: 3, zIndex: 2 };
      if (refs.ranks.current.size === 0) return data;
      const rank = refs.ranks.current.get(node);
      if (rank === undefined) return { ...data, color: '#d0d0d0', forceLabel: false, zIndex: 0 };
      return { ...data, highlighted: true, size: data.size + 4, label: `${rank}. ${data.label}`, zIndex: 2, forceLabel: true, labelPriority: 3 };
    },
    edgeReducer: (_edge, data) => (refs.hidden.current.has(data.linkType) ? { ...data, hidden: true } : data),
  });
  ratio = () => renderer.getCamera().getState().ratio;
  view = () => renderer.getDimensions();
  const drawLabels = () => {
    if (pending.length === 0 && drawn.length === 0 && highlighted.size === 0) return;
    const context = renderer.getCanvases().labels.getContext('2d')!;
    const placed: Box[] = [...highlighted.values()];
    const size = view();
    drawn = [...highlighted].map(([id, box]) => ({ id, ...box }));
    pending.sort((a, b) => b.priority - a.priority);
    context.textBaseline = 'middle';
    context.lineJoin = 'round';
    for (const label of pending) {
      // A node off screen keeps its label off screen too (sigma offers labels up to 150 px beyond the edges).
      if (label.x < 0 || label.y < 0 || label.x > size.width || label.y > size.height) continue;
      context.font = `${label.bold ? 600 : 400} ${labelSize}px ${labelFont}`;
      const width = context.measureText(label.text).width;
      const box = placeLabel(label.x, label.y, label.radius, width, size, placed);
      if (!box) continue;
      placed.push(box);
      drawn.push({ id: label.key, ...box });
      context.strokeStyle = 'rgba(255, 255, 255, 0.9)';
      context.lineWidth = 3;
      context.strokeText(label.text, box.left, box.top + box.height / 2);
      context.fillStyle = '#111111';
      context.fillText(label.text, box.left, box.top + box.height / 2);
    }
    pending = [];
  };
  // The constructor's frame drew no labels yet (its labels were gathered before these listeners).
  drawLabels();
  renderer.on('beforeRender', () => {
    pending = [];
    highlighted = new Map();
  });
  renderer.on('afterRender', drawLabels);
  renderer.on('clickNode', ({ node }) => refs.open.current(node, graph.getNodeAttribute(node, 'kind')));
  renderer.on('enterNode', ({ node }) => {
    el.style.cursor = 'pointer';
    pointerOn = node;
  });
  renderer.on('leaveNode', () => {
    el.style.cursor = 'default';
    pointerOn = null;
    hoverLabel = null;
  });
  // Sigma 3.0 keeps the node the pointer left the graph from as hovered (its label stayed, and coming back onto
  // it was no new enterNode): forget it.
  renderer.on('leaveStage', () => {
    (renderer as unknown as { hoveredNode: string | null }).hoveredNode = null;
  });
  window.__consoleGraphView = {
    node: (id) => {
      const data = renderer.getNodeDisplayData(id);
      if (!data || data.hidden) return null;
      const at = renderer.framedGraphToViewport(data);
      const rect = el.getBoundingClientRect();
      return { x: rect.left + at.x, y: rect.top + at.y, radius: renderer.scaleSize(data.size) };
    },
    labels: () => drawn.map((label) => ({ ...label })),
    hoverLabel: () => hoverLabel,
  };
  return renderer;
}

function GraphView({ model, hiddenTypes, bundle, marked, onOpen }: { model: GraphModel; hiddenTypes: Set<string>; bundle: Bundled[] | null; marked: Set<string>; onOpen: (id: string, kind: string) => void }) {
  const container = useRef<HTMLDivElement>(null);
  const sigmaRef = useRef<Sigma | null>(null);
  const graph = useMemo(() => toGraph(model), [model]);
  const hidden = useRef(hiddenTypes);
  hidden.current = hiddenTypes;
  const ranks = useRef(new Map<string, number>());
  const markedRef = useRef(marked);
  markedRef.current = marked;
  const open = useRef(onOpen);
  open.current = onOpen;

  useEffect(() => {
    const el = container.current!;
    el.dataset.ready = 'false';
    el.dataset.layout = 'pending';
    window.__consoleGraph = graph;
    let renderer: Sigma | null = null;
    let worker: Worker | null = null;
    let frame = 0;
    let settle = 0;

    /** Sigma on the graph as it is now: its first frame is drawn here, so it waits for real positions. */
    const draw = () => {
      renderer = createRenderer(graph, el, { hidden, ranks, marked: markedRef, open });
      sigmaRef.current = renderer;
      // Interactive once the first frame is drawn and the main thread is free again; only then is the layout refined.
      frame = requestAnimationFrame(() => {
        settle = window.setTimeout(() => {
          window.__consoleGraphReadyMs = Math.round(performance.now());
          el.dataset.readyMs = String(window.__consoleGraphReadyMs);
          el.dataset.ready = 'true';
          worker?.postMessage({ kind: 'refine' } satisfies LayoutMessage);
        }, 0);
      });
    };
    const place = (positions: Float32Array) => {
      let i = 0;
      graph.updateEachNodeAttributes((_id, attributes) => {
        attributes.x = positions[i++];
        attributes.y = positions[i++];
        return attributes;
      }, { attributes: ['x', 'y'] });
    };
    const failed = () => {
      worker?.terminate();
      worker = null;
      el.dataset.layout = 'failed';
      if (!renderer) draw();
    };

    if (graph.order > 1) {
      // The layout worker answers with a seed (every cluster already apart), then, asked again, the settled layout.
      const index = new Map<string, number>();
      graph.forEachNode((id) => index.set(id, index.size));
      const links = new Uint32Array(graph.size * 2);
      let k = 0;
      graph.forEachEdge((_e, _a, source, target) => {
        links[k++] = index.get(source)!;
        links[k++] = index.get(target)!;
      });
      try {
        worker = takeLayoutWorker();
        worker.onmessage = (e: MessageEvent<LayoutFrame>) => {
          place(e.data.positions);
          if (!renderer) {
            performance.mark('graph:first-frame');
            draw();
          }
          if (e.data.final) {
            el.dataset.layout = 'done';
            el.dataset.layoutMs = String(Math.round(performance.now()));
            worker?.terminate();
            worker = null;
          } else el.dataset.layout = 'running';
        };
        worker.onerror = failed;
        worker.postMessage({ kind: 'layout', n: graph.order, links } satisfies LayoutMessage, [links.buffer]);
      } catch {
        failed();
      }
    } else {
      el.dataset.layout = 'done';
      draw();
    }
    return () => {
      cancelAnimationFrame(frame);
      clearTimeout(settle);
      worker?.terminate();
      renderer?.kill();
      sigmaRef.current = null;
      if (window.__consoleGraph === graph) {
        window.__consoleGraph = undefined;
        window.__consoleGraphView = undefined;
      }
    };
  }, [graph]);

  useEffect(() => {
    sigmaRef.current?.refresh();
  }, [hiddenTypes, marked]);

  useEffect(() => {
    ranks.current = new Map((bundle ?? []).filter((b) => graph.hasNode(b.id)).map((b) => [b.id, b.rank]));
    graph.forEachNode((id) => {
      const rank = ranks.current.get(id);
      if (rank === undefined) graph.removeNodeAttribute(id, 'bundleRank');
      else graph.setNodeAttribute(id, 'bundleRank', rank);
    });
    container.current!.dataset.bundleCount = String(ranks.current.size);
    sigmaRef.current?.refresh();
  }, [bundle, graph]);

  return (
    <div
      ref={container}
      className="graph"
      data-testid="graph"
      data-node-count={graph.order}
      data-edge-count={graph.size}
      role="img"
      aria-label={`Graph of ${graph.order} nodes and ${graph.size} links. Use the node list below to open a node with the keyboard.`}
    />
  );
}

export default function GraphPage() {
  const { ws } = useParams<{ ws: string }>();
  const search = new URLSearchParams(useSearch());
  const [, navigate] = useLocation();
  const playbookId = search.get('playbook') ?? '';
  const [depth, setDepth] = useState(2);
  const [includeArchived, setIncludeArchived] = useState(false);
  const [hiddenTypes, setHiddenTypes] = useState<Set<string>>(new Set());
  const query = { ...(playbookId ? { playbookId, depth } : {}), includeArchived, limit: 5000 };
  const graph = useQuery({ queryKey: ['graph', ws, query], queryFn: () => getGraph(ws, query), staleTime: 0 });
  const playbooks = useQuery({ queryKey: ['playbooks', ws, 'all-titles'], queryFn: () => clientFor(ws).playbooks.page({ sort: 'title', order: 'asc', limit: 100 }) });
  // The API's own defaults (mode standard, as get_bundle takes too), so the preview counts what an agent's bundle holds.
  const [bundleForm, setBundleForm] = useState({ mode: 'standard' as BundleMode, maxNodes: 20, depth: 2, maxTokens: '' });
  const [bundle, setBundle] = useState<Bundled[] | null>(null);
  const [bundleInfo, setBundleInfo] = useState<{ text: string; tokens: number } | null>(null);
  const [bundleError, setBundleError] = useState<unknown>(null);
  const [filter, setFilter] = useState('');
  useEffect(() => setBundle(null), [playbookId]);
  useEffect(() => {
    prestartLayoutWorker();
    return () => {
      spareWorker?.terminate();
      spareWorker = null;
    };
  }, []);

  const preview = async (e: FormEvent) => {
    e.preventDefault();
    setBundleError(null);
    try {
      const asked = {
        playbookId,
        mode: bundleForm.mode,
        maxNodes: bundleForm.maxNodes,
        depth: bundleForm.depth,
        ...(bundleForm.maxTokens ? { maxTokens: Number(bundleForm.maxTokens) } : {}),
      };
      const answer = await clientFor(ws).context.bundle(asked);
      setBundle(answer.nodes.map((n, i) => ({ rank: i + 1, id: n.id, title: n.title, reason: n.reason, score: n.score })));
      // The figure is the answer's own tokenCount: what the API reports for these parameters (get_bundle too, given the same ones).
      const nodes = `${answer.nodes.length} node${answer.nodes.length === 1 ? '' : 's'}`;
      const left = answer.omittedCount ? `; ${answer.omittedCount} left out (${[...new Set(answer.omitted.map((o) => o.reason))].join(', ')})` : '';
      const params = `${asked.mode} mode, max ${asked.maxNodes} nodes, depth ${asked.depth}${asked.maxTokens ? `, max ${asked.maxTokens} tokens` : ''}`;
      setBundleInfo({ text: `${nodes}; their texts hold ${answer.tokenCount.toLocaleString('en')} tokens (${params})${left}.`, tokens: answer.tokenCount });
    } catch (err) {
      setBundle(null);
      setBundleError(err);
    }
  };
  const openNode = (id: string, kind: string) => navigate(kind === 'playbook' ? `/playbooks/${id}` : `/nodes/${id}`);
  const toggle = (t: string) => setHiddenTypes((h) => { const n = new Set(h); if (n.has(t)) n.delete(t); else n.add(t); return n; });
  const listed = useMemo(() => {
    const words = filter.trim().toLowerCase();
    if (!graph.data || !words) return [];
    return graph.data.nodes.filter((n) => `${n.title} ${n.slug}`.toLowerCase().includes(words)).slice(0, 20);
  }, [graph.data, filter]);
  // Selected: the playbook whose neighbourhood this is, and the nodes the search below finds; their labels always show.
  const marked = useMemo(() => new Set([...(playbookId ? [playbookId] : []), ...listed.map((n) => n.id)]), [playbookId, listed]);

  return (
    <>
      <PageTitle text={playbookId ? 'Playbook neighbourhood' : 'Workspace graph'} />
      <form className="filters" aria-label="What the graph shows" onSubmit={(e) => e.preventDefault()}>
        <div>
          <label htmlFor="graph-playbook">Playbook</label>
          <select id="graph-playbook" value={playbookId} onChange={(e) => navigate(e.target.value ? `/graph?playbook=${e.target.value}` : '/graph')}>
            <option value="">whole workspace</option>
            {playbooks.data?.playbooks.map((p) => <option key={p.id} value={p.id}>{p.title}</option>)}
            {playbookId && !playbooks.data?.playbooks.some((p) => p.id === playbookId) && <option value={playbookId}>{playbookId}</option>}
          </select>
        </div>
        {playbookId && (
          <div>
            <label htmlFor="graph-depth">Depth</label>
            <input id="graph-depth" type="number" min={1} max={5} value={depth} onChange={(e) => setDepth(Math.min(5, Math.max(1, Number(e.target.value) || 1)))} />
          </div>
        )}
        <div className="checks">
          <input id="graph-archived" type="checkbox" checked={includeArchived} onChange={(e) => setIncludeArchived(e.target.checked)} />
          <label htmlFor="graph-archived">Show archived</label>
        </div>
        <fieldset className="checks">
          <legend>Link types</legend>
          {linkTypes.map((t) => (
            <span key={t}>
              <input id={`lt-${t}`} type="checkbox" checked={!hiddenTypes.has(t)} onChange={() => toggle(t)} />
              <label htmlFor={`lt-${t}`}><span className="swatch" data-link-type={t} aria-hidden="true" />{t}</label>
            </span>
          ))}
        </fieldset>
      </form>
      <ul className="legend" aria-label="Node colours">
        {Object.keys(typeColours).map((t) => <li key={t}><span className={`dot t-${t}`} aria-hidden="true" />{t}</li>)}
      </ul>
      <p className="muted small">A circle’s size is its number of links. The most linked nodes are named; point at any other for its title, or zoom in.</p>
      {graph.isPending && <Loading what="Loading the graph" />}
      <ErrorNote error={graph.error} />
      {graph.data?.truncated && <p role="status">The graph is cut at {query.limit} nodes.</p>}
      <div className="graph-layout">
        {graph.data && <GraphView model={graph.data} hiddenTypes={hiddenTypes} bundle={bundle} marked={marked} onOpen={openNode} />}
        {playbookId && (
          <aside aria-labelledby="bundle-title" className="bundle">
            <h2 id="bundle-title">Bundle preview</h2>
            <form onSubmit={preview} className="stack">
              <label htmlFor="b-mode">Mode</label>
              <select id="b-mode" value={bundleForm.mode} onChange={(e) => setBundleForm({ ...bundleForm, mode: e.target.value as BundleMode })}>
                {bundleModes.map(([m, text]) => <option key={m} value={m}>{text}</option>)}
              </select>
              <label htmlFor="b-max-nodes">Max nodes</label>
              <input id="b-max-nodes" type="number" min={1} max={100} value={bundleForm.maxNodes} onChange={(e) => setBundleForm({ ...bundleForm, maxNodes: Number(e.target.value) })} />
              <label htmlFor="b-depth">Depth</label>
              <input id="b-depth" type="number" min={1} max={5} value={bundleForm.depth} onChange={(e) => setBundleForm({ ...bundleForm, depth: Number(e.target.value) })} />
              <label htmlFor="b-max-tokens">Max tokens (optional)</label>
              <input id="b-max-tokens" type="number" min={1} value={bundleForm.maxTokens} onChange={(e) => setBundleForm({ ...bundleForm, maxTokens: e.target.value })} />
              <button type="submit">Preview bundle</button>
            </form>
            <p className="muted small">A preview is a retrieval: it counts against the month’s limit.</p>
            <ErrorNote error={bundleError} />
            {bundle && (
              <>
                <p role="status" data-testid="bundle-tokens" data-token-count={bundleInfo?.tokens}>{bundleInfo?.text}</p>
                <ol className="bundle-list" data-testid="bundle-list">
                  {bundle.map((b) => (
                    <li key={b.id} data-node-id={b.id} data-rank={b.rank}>
                      <Link href={`/nodes/${b.id}`}>{b.title}</Link>
                      <div className="muted small">
                        {b.reason.kind}, depth {b.reason.depth}{b.reason.openFeedback?.length ? `, flagged ${b.reason.openFeedback.join(', ')}` : ''}
                      </div>
                    </li>
                  ))}
                </ol>
              </>
            )}
          </aside>
        )}
      </div>
      {graph.data && (
        <section aria-labelledby="find-title">
          <h2 id="find-title">Find a node</h2>
          <label htmlFor="graph-find">Title or slug</label>
          <input id="graph-find" type="search" value={filter} onChange={(e) => setFilter(e.target.value)} />
          <ul>
            {listed.map((n) => (
              <li key={n.id}><Link href={n.kind === 'playbook' ? `/playbooks/${n.id}` : `/nodes/${n.id}`}>{n.title}</Link> <span className="muted small">{n.kind === 'playbook' ? 'playbook' : n.nodeType}</span></li>
            ))}
          </ul>
        </section>
      )}
    </>
  );
}
