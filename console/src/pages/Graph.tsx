import { type GetBundleData, linkTypes } from '@sdk';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { Link, useLocation, useParams, useSearch } from 'wouter';
import { clientFor } from '../api.ts';
import { getGraph } from '../calls.ts';
import { dropSpareLayoutWorker, prestartLayoutWorker } from '../graph/layout.ts';
import { type Clusters, uniformNodeType } from '../graph/model.ts';
import { otherClusterColour, typeColours, unlinkedColour } from '../graph/styles.ts';
import { type Bundled, GraphView } from '../graph/view.tsx';
import { ErrorNote, Loading, PageTitle } from '../ui.tsx';

type BundleMode = NonNullable<NonNullable<GetBundleData['query']>['mode']>;
/** The bundle's modes, as the API names them; tokenCount counts the texts each carries. */
const bundleModes: [BundleMode, string][] = [['standard', 'standard (content)'], ['summary', 'summary (agent summaries)'], ['full', 'full (content, description, summary)']];

/** A legend's colour dot drawn in SVG: its colour is an attribute, which the CSP allows where a style attribute is refused. */
function Swatch({ colour }: { colour: string }) {
  return (
    <svg className="swatch-dot" width="13" height="13" viewBox="0 0 12 12" aria-hidden="true" focusable="false">
      <circle cx="6" cy="6" r="5.5" fill={colour} />
    </svg>
  );
}

/** The workspace's graph, or a playbook's neighbourhood with a preview of its bundle, and a search for a node. */
export default function GraphPage() {
  const { ws } = useParams<{ ws: string }>();
  const search = new URLSearchParams(useSearch());
  const [, navigate] = useLocation();
  const playbookId = search.get('playbook') ?? '';
  // A node picked out from elsewhere (Find's "show in graph"): marked like a found node, and named above the graph.
  const focusId = search.get('focus') ?? '';
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
  const [clusters, setClusters] = useState<Clusters | null>(null);
  useEffect(() => setBundle(null), [playbookId]);
  useEffect(() => setClusters(null), [graph.data]);
  useEffect(() => {
    prestartLayoutWorker();
    return dropSpareLayoutWorker;
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
  const marked = useMemo(() => new Set([...(playbookId ? [playbookId] : []), ...(focusId ? [focusId] : []), ...listed.map((n) => n.id)]), [playbookId, focusId, listed]);
  const focused = focusId ? graph.data?.nodes.find((n) => n.id === focusId) : undefined;
  // An imported vault's notes are all `reference`: one colour for all would say nothing.
  const oneType = useMemo(() => (graph.data ? uniformNodeType(graph.data) : null), [graph.data]);

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
      {oneType ? (
        <>
          <p className="small" data-testid="graph-colour-note">
            Every node here is a {oneType}, so colours show clusters of closely linked notes instead of types (playbooks stay black).
          </p>
          {clusters && (
            <ul className="legend" aria-label="Node colours">
              {clusters.coloured.map((c) => (
                <li key={c.colour}><Swatch colour={c.colour} />around {c.hub} ({c.size})</li>
              ))}
              {clusters.others > 0 && <li><Swatch colour={otherClusterColour} />smaller clusters ({clusters.others})</li>}
              {clusters.unlinked > 0 && <li><Swatch colour={unlinkedColour} />no links ({clusters.unlinked})</li>}
            </ul>
          )}
        </>
      ) : (
        <ul className="legend" aria-label="Node colours">
          {Object.keys(typeColours).map((t) => <li key={t}><span className={`dot t-${t}`} aria-hidden="true" />{t}</li>)}
        </ul>
      )}
      <p className="muted small">A circle’s size is its number of links. The most linked nodes are named; point at any other for its title, or zoom in.</p>
      {graph.isPending && <Loading what="Loading the graph" />}
      <ErrorNote error={graph.error} />
      {graph.data?.truncated && <p role="status">The graph is cut at {query.limit} nodes.</p>}
      {focusId && graph.data && (
        <p role="status" data-testid="graph-focus" data-node-id={focused ? focusId : undefined}>
          {focused ? <>Showing <Link href={focused.kind === 'playbook' ? `/playbooks/${focusId}` : `/nodes/${focusId}`}>{focused.title}</Link>, labelled on the graph.</> : `Node ${focusId} is not in the graph shown.`}
        </p>
      )}
      <div className="graph-layout">
        {graph.data && <GraphView model={graph.data} hiddenTypes={hiddenTypes} bundle={bundle} marked={marked} onOpen={openNode} onClusters={setClusters} />}
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
