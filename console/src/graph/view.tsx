import { useEffect, useMemo, useRef } from 'react';
import type Sigma from 'sigma';
import type { GraphModel } from '../calls.ts';
import type { LayoutFrame, LayoutMessage } from './layout.worker.ts';
import { takeLayoutWorker } from './layout.ts';
import { type Clusters, colourByCluster, workspaceGraph } from './model.ts';
import { createRenderer } from './renderer.ts';

/** A node of a bundle preview, by its rank: highlighted on the graph. */
export interface Bundled {
  rank: number;
  id: string;
  title: string;
  reason: { kind: string; depth: number; fromId: string | null; openFeedback?: string[] };
  score: number;
}

/**
 * The workspace graph on the page: laid out by the worker (a seed first, then refined), drawn by sigma once the
 * seed is in, with link types hidden, bundle nodes ranked and searched nodes marked as the page says.
 */
export function GraphView({ model, hiddenTypes, bundle, marked, onOpen, onClusters }: {
  model: GraphModel;
  hiddenTypes: Set<string>;
  bundle: Bundled[] | null;
  marked: Set<string>;
  onOpen: (id: string, kind: string) => void;
  /** When the nodes are all of one type, the clusters they are coloured by, once the layout has found them. */
  onClusters?: (clusters: Clusters) => void;
}) {
  const container = useRef<HTMLDivElement>(null);
  const sigmaRef = useRef<Sigma | null>(null);
  const graph = useMemo(() => workspaceGraph(model), [model]);
  const hidden = useRef(hiddenTypes);
  hidden.current = hiddenTypes;
  const ranks = useRef(new Map<string, number>());
  const markedRef = useRef(marked);
  markedRef.current = marked;
  const open = useRef(onOpen);
  open.current = onOpen;
  const clustersFound = useRef(onClusters);
  clustersFound.current = onClusters;

  useEffect(() => {
    const el = container.current!;
    el.dataset.ready = 'false';
    el.dataset.layout = 'pending';
    const byCluster = graph.getAttribute('colourBy') === 'cluster';
    el.dataset.colourBy = byCluster ? 'cluster' : 'type';
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
          // The seed brings the communities: coloured before the first frame is drawn.
          if (byCluster && e.data.communities) {
            const clusters = colourByCluster(graph, e.data.communities);
            el.dataset.clusterCount = String(clusters.coloured.length);
            clustersFound.current?.(clusters);
          }
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
