/// <reference lib="webworker" />
import Graph from 'graphology';
import forceAtlas2 from 'graphology-layout-forceatlas2';

/** ForceAtlas2 off the main thread: gets positions and edges, answers with new positions. */
self.onmessage = (event: MessageEvent<{ nodes: [string, number, number][]; edges: [string, string][]; iterations: number }>) => {
  const { nodes, edges, iterations } = event.data;
  const graph = new Graph({ multi: true, type: 'directed' });
  for (const [id, x, y] of nodes) graph.addNode(id, { x, y });
  for (const [a, b] of edges) if (graph.hasNode(a) && graph.hasNode(b)) graph.addEdge(a, b);
  const settings = { ...forceAtlas2.inferSettings(graph), barnesHutOptimize: graph.order > 500 };
  const positions = forceAtlas2(graph, { iterations, settings });
  (self as unknown as Worker).postMessage(positions);
};
