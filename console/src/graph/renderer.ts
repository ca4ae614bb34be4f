import type Graph from 'graphology';
import Sigma from 'sigma';
import { EdgeLineProgram } from 'sigma/rendering';
import { type Box, type PendingLabel, clip, placeLabel } from './labels.ts';
import { labelFont, labelSize } from './styles.ts';

/** Sigma on the graphs: the workspace graph with its own labels and highlights, and a Cypher answer with sigma's. */

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

export interface ViewRefs {
  hidden: { current: Set<string> };
  ranks: { current: Map<string, number> };
  marked: { current: Set<string> };
  open: { current: (id: string, kind: string) => void };
}

/**
 * Sigma on the graph, drawing its first frame. Labels are gathered while sigma renders, then drawn by priority
 * (selected and bundle nodes, hubs, the rest only when zoomed in), each inside the viewport and none over another.
 */
export function createRenderer(graph: Graph, el: HTMLElement, refs: ViewRefs): Sigma {
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

/** A Cypher answer's graph: arrows, sigma's own labels (every one on a small graph), relationship types on a small one. */
export function answerRenderer(graph: Graph, el: HTMLElement): Sigma {
  return new Sigma(graph, el, {
    defaultEdgeType: 'arrow',
    renderEdgeLabels: graph.size <= 200,
    labelRenderedSizeThreshold: graph.order <= 100 ? 0 : 8,
    labelFont: 'system-ui, sans-serif',
  });
}
