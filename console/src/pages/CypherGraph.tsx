import { MultiDirectedGraph } from 'graphology';
import { circular } from 'graphology-layout';
import forceAtlas2 from 'graphology-layout-forceatlas2';
import { useEffect, useMemo, useRef } from 'react';
import Sigma from 'sigma';
import { type ResultGraph, nodeCaption } from './CypherValues.ts';

/**
 * The nodes and relationships of a Cypher answer, drawn by sigma (loaded with this module only when the Graph
 * view is chosen). Sigma sets its canvases' sizes through the CSSOM, which the console's CSP allows. An answer
 * is bounded by its limit, so the layout runs here, on the main thread, in a number of steps that shrinks as the
 * graph grows.
 */

// Distinct on white and on each other; a label's colour is its first label's place in the answer's list.
const palette = ['#1565c0', '#c2185b', '#2e7d32', '#6a1b9a', '#ef6c00', '#00838f', '#5d4037', '#455a64', '#ad1457', '#283593'];

export function labelColours(result: ResultGraph): Map<string, string> {
  const labels = [...new Set([...result.nodes.values()].map((n) => n.labels[0] ?? ''))].sort();
  return new Map(labels.map((l, i) => [l, palette[i % palette.length]]));
}

function toGraph(result: ResultGraph, colours: Map<string, string>): MultiDirectedGraph {
  const graph = new MultiDirectedGraph();
  for (const n of result.nodes.values()) {
    graph.addNode(n.elementId, { label: nodeCaption(n), color: colours.get(n.labels[0] ?? ''), size: 6, x: 0, y: 0 });
  }
  for (const r of result.relationships.values()) {
    graph.addDirectedEdgeWithKey(r.elementId, r.startElementId, r.endElementId, { label: r.type, color: '#8a8a8a', size: 1.5 });
  }
  graph.forEachNode((id) => graph.setNodeAttribute(id, 'size', 5 + Math.min(10, Math.sqrt(graph.degree(id)) * 2)));
  if (graph.order > 1) {
    circular.assign(graph);
    const iterations = graph.order > 1000 ? 30 : graph.order > 200 ? 100 : 300;
    forceAtlas2.assign(graph, { iterations, settings: { ...forceAtlas2.inferSettings(graph), barnesHutOptimize: graph.order > 500 } });
  }
  return graph;
}

export default function CypherGraph({ result }: { result: ResultGraph }) {
  const container = useRef<HTMLDivElement>(null);
  const colours = useMemo(() => labelColours(result), [result]);
  const graph = useMemo(() => toGraph(result, colours), [result, colours]);

  useEffect(() => {
    const el = container.current!;
    el.dataset.ready = 'false';
    const renderer = new Sigma(graph, el, {
      defaultEdgeType: 'arrow',
      renderEdgeLabels: graph.size <= 200,
      labelRenderedSizeThreshold: graph.order <= 100 ? 0 : 8,
      labelFont: 'system-ui, sans-serif',
    });
    const frame = requestAnimationFrame(() => {
      el.dataset.ready = 'true';
    });
    return () => {
      cancelAnimationFrame(frame);
      renderer.kill();
    };
  }, [graph]);

  return (
    <div className="cypher-graph-wrap">
      <ul className="legend" aria-label="Node labels">
        {[...colours].map(([label, colour]) => (
          <li key={label}>
            <span className="dot" style={{ backgroundColor: colour }} aria-hidden="true" />
            {label || '(no label)'}
          </li>
        ))}
      </ul>
      <div
        ref={container}
        className="cypher-graph"
        data-testid="cypher-graph"
        data-node-count={graph.order}
        data-edge-count={graph.size}
        role="img"
        aria-label={`Graph of ${graph.order} nodes and ${graph.size} relationships from the answer. The Table view lists them as text.`}
      />
    </div>
  );
}
