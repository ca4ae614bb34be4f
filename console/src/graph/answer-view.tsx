import type Graph from 'graphology';
import { circular } from 'graphology-layout';
import forceAtlas2 from 'graphology-layout-forceatlas2';
import { useEffect, useMemo, useRef } from 'react';
import type { ResultGraph } from '../pages/CypherValues.ts';
import { answerGraph } from './model.ts';
import { answerRenderer } from './renderer.ts';
import { paletteFor } from './styles.ts';

/**
 * The nodes and relationships of a Cypher answer, drawn by sigma (loaded with this module only when the Cypher
 * page's Graph view is chosen). Sigma sets its canvases' sizes through the CSSOM, which the console's CSP allows.
 * An answer is bounded by its limit, so the layout runs here, on the main thread, in a number of steps that
 * shrinks as the graph grows.
 */

/** On a circle, then ForceAtlas2. */
function layOut(graph: Graph): void {
  if (graph.order <= 1) return;
  circular.assign(graph);
  const iterations = graph.order > 1000 ? 30 : graph.order > 200 ? 100 : 300;
  forceAtlas2.assign(graph, { iterations, settings: { ...forceAtlas2.inferSettings(graph), barnesHutOptimize: graph.order > 500 } });
}

export default function AnswerGraphView({ result }: { result: ResultGraph }) {
  const container = useRef<HTMLDivElement>(null);
  const colours = useMemo(() => paletteFor([...result.nodes.values()].map((n) => n.labels[0] ?? '')), [result]);
  const graph = useMemo(() => {
    const laidOut = answerGraph(result, colours);
    layOut(laidOut);
    return laidOut;
  }, [result, colours]);

  useEffect(() => {
    const el = container.current!;
    el.dataset.ready = 'false';
    const renderer = answerRenderer(graph, el);
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
