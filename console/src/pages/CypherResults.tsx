import { lazy, Suspense, useMemo, useState } from 'react';
import { messageOf } from '../api.ts';
import { Loading } from '../ui.tsx';
import { cellText, graphOf } from './CypherValues.ts';

const CypherGraph = lazy(() => import('../graph/answer-view.tsx'));

/** The table shows this many rows; the CSV download holds them all. */
const shownRows = 1000;

export interface PlanStep {
  operator: string;
  depth: number;
  details: string;
  estimatedRows: number | null;
  rows: number | null;
  dbHits: number | null;
}

export interface ResultsProps {
  /** Prefix of the ids inside, so that two result panels can share a page. */
  id: string;
  title: string;
  columns: string[];
  rows: unknown[][];
  /** Under the title: rows, time, truncation. */
  summary: string;
  plan?: PlanStep[];
  csv: () => Promise<Blob>;
  fileName: string;
}

/** Hands a Blob to the browser as a download through an object URL (the CSP governs fetches, not downloads). */
function saveBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  // The download has started reading the Blob by now; the URL is kept a while for slow disks.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** An answer as a table, or as a graph when it holds nodes and relationships; CSV from the service. */
export function CypherResults({ id, title, columns, rows, summary, plan, csv, fileName }: ResultsProps) {
  const graph = useMemo(() => graphOf(rows), [rows]);
  const graphable = graph.nodes.size > 0;
  const [view, setView] = useState<'table' | 'graph'>('table');
  const [csvState, setCsvState] = useState<{ busy: boolean; error: unknown }>({ busy: false, error: null });
  const shown = view === 'graph' && graphable ? 'graph' : 'table';

  const download = async () => {
    setCsvState({ busy: true, error: null });
    try {
      saveBlob(await csv(), fileName);
      setCsvState({ busy: false, error: null });
    } catch (error) {
      setCsvState({ busy: false, error });
    }
  };

  return (
    <section className="cypher-results" aria-labelledby={`${id}-title`}>
      <div className="cypher-results-head">
        <h2 id={`${id}-title`}>{title}</h2>
        <p className="muted small" role="status">{summary}</p>
        <div className="actions">
          {graphable && (
            <div role="group" aria-label="View" className="cypher-toggle">
              <button type="button" aria-pressed={shown === 'table'} onClick={() => setView('table')}>Table</button>
              <button type="button" aria-pressed={shown === 'graph'} onClick={() => setView('graph')}>Graph</button>
            </div>
          )}
          <button type="button" className="secondary" onClick={download} disabled={csvState.busy}>
            {csvState.busy ? 'Preparing CSV…' : 'Download CSV'}
          </button>
        </div>
      </div>
      {csvState.error ? <p role="alert" className="error">CSV: {messageOf(csvState.error)}</p> : null}
      {shown === 'graph' ? (
        <Suspense fallback={<Loading what="Loading the graph" />}>
          <CypherGraph result={graph} />
          {graph.dangling > 0 && <p className="muted small">{graph.dangling} relationships are not drawn: an end of theirs is not in the answer.</p>}
        </Suspense>
      ) : (
        <div className="cypher-table-scroll" role="region" aria-label={`${title}: table`} tabIndex={0}>
          <table className="list cypher-table" data-testid={`${id}-table`}>
            <thead>
              <tr>{columns.map((c) => <th key={c} scope="col">{c}</th>)}</tr>
            </thead>
            <tbody>
              {rows.slice(0, shownRows).map((row, i) => (
                <tr key={i}>
                  {row.map((v, j) => <td key={j} className={v === null ? 'muted' : undefined}>{cellText(v)}</td>)}
                </tr>
              ))}
            </tbody>
          </table>
          {rows.length === 0 && <p className="muted">No rows.</p>}
          {rows.length > shownRows && <p className="muted small">The first {shownRows} of {rows.length} rows are shown; the CSV holds them all.</p>}
        </div>
      )}
      {plan && plan.length > 0 && (
        <details className="cypher-plan">
          <summary>Plan ({plan.length} operators)</summary>
          <div className="cypher-table-scroll" role="region" aria-label="Plan" tabIndex={0}>
            <table className="list">
              <thead>
                <tr><th scope="col">Operator</th><th scope="col">Details</th><th scope="col">Estimated rows</th><th scope="col">Rows</th><th scope="col">DB hits</th></tr>
              </thead>
              <tbody>
                {plan.map((p, i) => (
                  <tr key={i}>
                    <td><span className="cypher-depth" style={{ paddingLeft: `${p.depth}rem` }}>{p.operator}</span></td>
                    <td>{p.details}</td>
                    <td>{p.estimatedRows ?? '—'}</td>
                    <td>{p.rows ?? '—'}</td>
                    <td>{p.dbHits ?? '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </details>
      )}
    </section>
  );
}
