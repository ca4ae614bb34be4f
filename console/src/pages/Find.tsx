import type { QueryContextResponse, QueryNode } from '@sdk';
import { useInfiniteQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useMemo, useState } from 'react';
import { Link, useLocation, useParams, useSearch } from 'wouter';
import { clientFor } from '../api.ts';
import { ErrorNote, Loading, PageTitle } from '../ui.tsx';
import { EmbeddingBadge } from './EmbeddingBadge.tsx';
import { type SearchMode, reasonText, searchedBy } from './FindWords.ts';
import '../styles/find.css';

const modes: [SearchMode, string][] = [
  ['hybrid', 'hybrid (words and meaning)'],
  ['words', 'words'],
  ['meaning', 'meaning'],
];
const depths = [0, 1, 2, 3];
const pageSize = 10;

interface Asked {
  q: string;
  mode: SearchMode;
  depth: number;
}

/** The question lives in the address, so a result opened and then Back (or a reload, or a shared link) shows it again. */
function askedIn(search: string): Asked {
  const params = new URLSearchParams(search);
  const mode = params.get('mode');
  const depth = Number(params.get('depth') ?? 1);
  return {
    q: params.get('q')?.trim() ?? '',
    mode: modes.some(([m]) => m === mode) ? (mode as SearchMode) : 'hybrid',
    depth: depths.includes(depth) ? depth : 1,
  };
}
const findHref = ({ q, mode, depth }: Asked) => `/find?${new URLSearchParams({ q, mode, depth: String(depth) })}`;

/** One result: its title to open it, its type, why it is there, its score, and the way into the graph. */
function Result({ node, rank, titleOf }: { node: QueryNode; rank: number; titleOf: (id: string) => string | undefined }) {
  const score = node.score.toFixed(2);
  return (
    <li className="find-result" data-node-id={node.id} data-rank={rank}>
      <div className="find-head">
        <Link href={`/nodes/${node.id}`} className="find-title">{node.title}</Link>
        <span className="badge">{node.nodeType}</span>
        <span className="find-score">
          <meter min={0} max={1} value={node.score} aria-label={`Score of ${node.title}`} />
          <span className="muted small" data-testid="find-score">{score}</span>
        </span>
      </div>
      <p className="find-reason small" data-testid="find-reason">{reasonText(node.reason, titleOf)}</p>
      {node.description && <p className="find-description">{node.description}</p>}
      <Link href={`/graph?focus=${encodeURIComponent(node.id)}`} className="small" aria-label={`Show ${node.title} in the graph`}>
        Show in graph
      </Link>
    </li>
  );
}

/** Find: a question asked as a sentence, answered with the ranked nodes and why each is there (POST …/context/query). */
export function Find() {
  const { ws } = useParams<{ ws: string }>();
  const search = useSearch();
  const [, navigate] = useLocation();
  const queryClient = useQueryClient();
  const asked = useMemo(() => askedIn(search), [search]);
  const [text, setText] = useState(asked.q);
  const [mode, setMode] = useState<SearchMode>(asked.mode);
  const [depth, setDepth] = useState(asked.depth);
  // An address changed from elsewhere (Back, a link) puts its question back in the form.
  useEffect(() => {
    setText(asked.q);
    setMode(asked.mode);
    setDepth(asked.depth);
  }, [asked]);

  const queryKey = ['find', ws, asked];
  const results = useInfiniteQuery({
    queryKey,
    enabled: asked.q !== '',
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }): Promise<QueryContextResponse> =>
      clientFor(ws).context.query({ q: asked.q, mode: asked.mode, depth: asked.depth, limit: pageSize, ...(pageParam ? { cursor: pageParam } : {}) }),
    getNextPageParam: (last) => last.cursor,
    // Every answer is a metered retrieval: asked again only when the person asks, not on every return to the page.
    staleTime: Infinity,
  });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const q = text.trim();
    if (!q) return;
    const next = { q, mode, depth };
    if (findHref(next) === findHref(asked)) void queryClient.resetQueries({ queryKey });
    else navigate(findHref(next));
  };

  const pages = results.data?.pages ?? [];
  const nodes = pages.flatMap((p) => p.nodes);
  const first = pages[0];
  const last = pages.at(-1);
  const titles = useMemo(() => new Map(results.data?.pages.flatMap((p) => p.nodes.map((n) => [n.id, n.title] as const))), [results.data]);
  // A new question, not More: the answer on screen is replaced.
  const searching = results.isFetching && !results.isFetchingNextPage;

  return (
    <>
      <PageTitle text="Find" />
      <EmbeddingBadge ws={ws} />
      <form className="filters find-form" role="search" aria-label="Find context by meaning" onSubmit={submit}>
        <div className="find-q">
          <label htmlFor="find-q">Question</label>
          <input id="find-q" type="search" value={text} onChange={(e) => setText(e.target.value)} placeholder="How do I claim travel expenses?" maxLength={2000} />
        </div>
        <div>
          <label htmlFor="find-mode">Search by</label>
          <select id="find-mode" value={mode} onChange={(e) => setMode(e.target.value as SearchMode)}>
            {modes.map(([m, label]) => <option key={m} value={m}>{label}</option>)}
          </select>
        </div>
        <div>
          <label htmlFor="find-depth">Links followed</label>
          <select id="find-depth" value={depth} onChange={(e) => setDepth(Number(e.target.value))} aria-describedby="find-depth-help">
            {depths.map((d) => <option key={d} value={d}>{d}</option>)}
          </select>
          <span id="find-depth-help" className="visually-hidden">Hops of links walked from the best matches; 0 lists the matches only.</span>
        </div>
        <button type="submit" disabled={!text.trim()}>Find</button>
      </form>
      <p className="muted small">Ask in a sentence. Each search counts as a retrieval against the month’s limit.</p>
      {searching && <Loading what="Searching" />}
      <ErrorNote error={results.error} />
      {first?.query.degraded && (
        <p className="notice" data-testid="find-degraded">The question could not be embedded just now: searched by words only. Ask again in a moment to search by meaning too.</p>
      )}
      {first && !searching && (
        <p role="status" className="muted small" data-testid="find-summary" data-mode={first.query.mode}>
          {first.rankedCount === 0
            ? 'Nothing found. Try other words, or follow more links.'
            : `${nodes.length} of ${first.rankedCount} node${first.rankedCount === 1 ? '' : 's'}, best first; searched by ${searchedBy(asked.mode, first.query)}.`}
        </p>
      )}
      {nodes.length > 0 && (
        <ol className="find-results" data-testid="find-results" aria-label="Results">
          {nodes.map((n, i) => <Result key={n.id} node={n} rank={i + 1} titleOf={(id) => titles.get(id)} />)}
        </ol>
      )}
      {last?.cursor && (
        <button type="button" className="secondary" disabled={results.isFetchingNextPage} onClick={() => void results.fetchNextPage()}>
          {results.isFetchingNextPage ? 'Loading more…' : `More (${last.omittedCount} left)`}
        </button>
      )}
    </>
  );
}
