import { useQuery } from '@tanstack/react-query';
import Graph from 'graphology';
import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import Sigma from 'sigma';
import { Link, useLocation, useParams, useSearch } from 'wouter';
import { clientFor } from '../api.ts';
import { linkTypes } from '../node-types.ts';
import { type GraphModel, getGraph } from '../calls.ts';
import { ErrorNote, Loading, PageTitle } from '../ui.tsx';

const typeColours: Record<string, string> = {
  playbook: '#111111',
  brand: '#c2185b',
  process: '#1565c0',
  reference: '#2e7d32',
  'domain-knowledge': '#6a1b9a',
  example: '#ef6c00',
  index: '#00838f',
};
const linkStyles: Record<string, { color: string; size: number; type: 'arrow' | 'line' }> = {
  requires: { color: '#b71c1c', size: 2.5, type: 'arrow' },
  references: { color: '#9e9e9e', size: 1, type: 'arrow' },
  'relates-to': { color: '#c5cae9', size: 1, type: 'line' },
  supersedes: { color: '#6a1b9a', size: 2, type: 'arrow' },
  'index-entry': { color: '#80cbc4', size: 1, type: 'line' },
};

declare global {
  interface Window {
    /** The graph model on screen (tests assert on it, never on pixels). */
    __consoleGraph?: Graph;
    /** ms from navigation start to the graph being interactive, per render. */
    __consoleGraphReadyMs?: number;
  }
}

/** A graphology graph from the API's model: node colour by type, size by importance, links styled by type. */
function toGraph(model: GraphModel): Graph {
  const graph = new Graph({ multi: true, type: 'directed', allowSelfLoops: true });
  const n = model.nodes.length;
  model.nodes.forEach((node, i) => {
    // A first layout on a spiral, refined by ForceAtlas2 in a worker once the graph is on screen.
    const angle = i * 2.399963;
    const radius = Math.sqrt(i + 1) * 10;
    graph.addNode(node.id, {
      x: Math.cos(angle) * radius,
      y: Math.sin(angle) * radius,
      label: node.title,
      kind: node.kind,
      slug: node.slug,
      nodeType: node.kind === 'playbook' ? 'playbook' : (node.nodeType ?? 'reference'),
      status: node.status,
      importance: node.importance ?? 50,
      size: node.kind === 'playbook' ? 10 : 3 + ((node.importance ?? 50) / 100) * (n > 500 ? 7 : 12),
      color: typeColours[node.kind === 'playbook' ? 'playbook' : (node.nodeType ?? 'reference')] ?? '#555555',
    });
  });
  for (const link of model.links) {
    if (!graph.hasNode(link.from) || !graph.hasNode(link.to)) continue;
    const style = linkStyles[link.type] ?? linkStyles.references;
    graph.addDirectedEdgeWithKey(link.id, link.from, link.to, { linkType: link.type, color: style.color, size: style.size, type: style.type });
  }
  return graph;
}

interface Bundled {
  rank: number;
  id: string;
  title: string;
  reason: { kind: string; depth: number; fromId: string | null; openFeedback?: string[] };
  score: number;
}

function GraphView({ model, hiddenTypes, bundle, onOpen }: { model: GraphModel; hiddenTypes: Set<string>; bundle: Bundled[] | null; onOpen: (id: string, kind: string) => void }) {
  const container = useRef<HTMLDivElement>(null);
  const sigmaRef = useRef<Sigma | null>(null);
  const graph = useMemo(() => toGraph(model), [model]);
  const hidden = useRef(hiddenTypes);
  hidden.current = hiddenTypes;
  const ranks = useRef(new Map<string, number>());
  const open = useRef(onOpen);
  open.current = onOpen;

  useEffect(() => {
    const el = container.current!;
    el.dataset.ready = 'false';
    const renderer = new Sigma(graph, el, {
      renderEdgeLabels: false,
      defaultEdgeType: 'arrow',
      labelRenderedSizeThreshold: graph.order > 500 ? 12 : 6,
      hideEdgesOnMove: graph.size > 2000,
      nodeReducer: (node, data) => {
        const rank = ranks.current.get(node);
        if (ranks.current.size === 0) return data;
        if (rank === undefined) return { ...data, color: '#d0d0d0', label: null, zIndex: 0 };
        return { ...data, highlighted: true, size: data.size + 4, label: `${rank}. ${data.label}`, zIndex: 1, forceLabel: true };
      },
      edgeReducer: (edge, data) => (hidden.current.has(data.linkType) ? { ...data, hidden: true } : data),
    });
    sigmaRef.current = renderer;
    window.__consoleGraph = graph;
    renderer.on('clickNode', ({ node }) => open.current(node, graph.getNodeAttribute(node, 'kind')));
    renderer.on('enterNode', () => (el.style.cursor = 'pointer'));
    renderer.on('leaveNode', () => (el.style.cursor = 'default'));
    let worker: Worker | null = null;
    // Interactive once the first frame is drawn and the main thread is free again.
    const frame = requestAnimationFrame(() => {
      setTimeout(() => {
        window.__consoleGraphReadyMs = Math.round(performance.now());
        el.dataset.readyMs = String(window.__consoleGraphReadyMs);
        el.dataset.ready = 'true';
        if (graph.order > 1) {
          worker = new Worker(new URL('../layout.worker.ts', import.meta.url), { type: 'module' });
          worker.onmessage = (e: MessageEvent<Record<string, { x: number; y: number }>>) => {
            for (const [id, p] of Object.entries(e.data)) if (graph.hasNode(id)) graph.mergeNodeAttributes(id, p);
            el.dataset.layout = 'done';
          };
          worker.postMessage({
            nodes: graph.mapNodes((id, a) => [id, a.x, a.y]),
            edges: graph.mapEdges((_e, _a, s, t) => [s, t]),
            iterations: graph.order > 1000 ? 60 : 150,
          });
        }
      }, 0);
    });
    return () => {
      cancelAnimationFrame(frame);
      worker?.terminate();
      renderer.kill();
      sigmaRef.current = null;
      if (window.__consoleGraph === graph) window.__consoleGraph = undefined;
    };
  }, [graph]);

  useEffect(() => {
    sigmaRef.current?.refresh();
  }, [hiddenTypes]);

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
  const [bundleForm, setBundleForm] = useState({ maxNodes: 20, depth: 2, maxTokens: '' });
  const [bundle, setBundle] = useState<Bundled[] | null>(null);
  const [bundleInfo, setBundleInfo] = useState<string | null>(null);
  const [bundleError, setBundleError] = useState<unknown>(null);
  const [filter, setFilter] = useState('');
  useEffect(() => setBundle(null), [playbookId]);

  const preview = async (e: FormEvent) => {
    e.preventDefault();
    setBundleError(null);
    try {
      const answer = await clientFor(ws).context.bundle({
        playbookId,
        mode: 'summary',
        maxNodes: bundleForm.maxNodes,
        depth: bundleForm.depth,
        ...(bundleForm.maxTokens ? { maxTokens: Number(bundleForm.maxTokens) } : {}),
      });
      setBundle(answer.nodes.map((n, i) => ({ rank: i + 1, id: n.id, title: n.title, reason: n.reason, score: n.score })));
      setBundleInfo(`${answer.nodes.length} nodes, ${answer.tokenCount} tokens${answer.omitted.length ? `; ${answer.omitted.length} left out (${[...new Set(answer.omitted.map((o) => o.reason))].join(', ')})` : ''}.`);
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
      {graph.isPending && <Loading what="Loading the graph" />}
      <ErrorNote error={graph.error} />
      {graph.data?.truncated && <p role="status">The graph is cut at {query.limit} nodes.</p>}
      <div className="graph-layout">
        {graph.data && <GraphView model={graph.data} hiddenTypes={hiddenTypes} bundle={bundle} onOpen={openNode} />}
        {playbookId && (
          <aside aria-labelledby="bundle-title" className="bundle">
            <h2 id="bundle-title">Bundle preview</h2>
            <form onSubmit={preview} className="stack">
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
                <p role="status">{bundleInfo}</p>
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
