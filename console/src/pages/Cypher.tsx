import type { EditorView } from '@codemirror/view';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { PlaybooksError, messageOf } from '../api.ts';
import { analystSession, useAnalystSession } from '../analyst-session.ts';
import { PageTitle } from '../ui.tsx';
import '../styles/cypher.css';
import { type CypherInput, cypherCsv, runCypher } from './CypherCalls.ts';
import { CypherEditor, moveEditorCursor, setEditorText } from './CypherEditor.tsx';
import { CypherReports } from './CypherReports.tsx';
import { CypherResults } from './CypherResults.tsx';
import { CypherSchema } from './CypherSchema.tsx';
import { rowsText } from './CypherValues.ts';

const firstQuery = 'MATCH (n)-[r]->(m)\nRETURN n, r, m\nLIMIT 25';
const defaultLimit = 1000;
const maxLimit = 100_000;

/** The analyst or admin token, asked for on this page only (the rest of the console takes a user key). */
function AnalystSignIn() {
  const { notice } = useAnalystSession();
  const [token, setToken] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!token.trim()) return;
    setToken('');
    analystSession.signIn(token);
  };
  return (
    <section className="signin">
      <PageTitle text="Cypher" />
      <p>Read-only Cypher over the whole graph, and the saved reports of any workspace, for the operator's analysts.</p>
      {notice && <p role="alert" className="notice">{notice}</p>}
      <form onSubmit={submit} autoComplete="off">
        <label htmlFor="analyst-token">Analyst token</label>
        <input id="analyst-token" name="analyst-token" type="password" value={token} onChange={(e) => setToken(e.target.value)} aria-describedby="analyst-token-help" spellCheck={false} required />
        <p id="analyst-token-help" className="muted">
          The deployment's ANALYST_TOKEN (or its ADMIN_TOKEN). It is kept in this browser tab only and forgotten when you sign out or close the tab.
        </p>
        <button type="submit">Sign in</button>
      </form>
    </section>
  );
}

interface Position {
  line: number;
  column: number;
  offset: number;
}

/** Neo4j's "(line 2, column 1 (offset: 10))", which the error's own line below says again. */
const positionClause = /\s*\(line \d+, column \d+ \(offset: \d+\)\)/;

/**
 * What went wrong with a query, said the way the service said it, once: a refusal's reason, a syntax error's message
 * with Neo4j's excerpt of the line (the caret under the column, in a fixed-width font) and its place.
 */
function QueryError({ error, onShow }: { error: unknown; onShow: (offset: number) => void }) {
  if (!error) return null;
  const position = error instanceof PlaybooksError ? (error.extensions.position as Position | undefined) : undefined;
  const lead = error instanceof PlaybooksError
    ? error.code === 'query_refused' ? 'Refused: ' : error.code === 'invalid_cypher' ? 'Invalid Cypher: ' : ''
    : '';
  const [head, ...excerpt] = messageOf(error).split('\n');
  return (
    <div role="alert" className="error cypher-error" data-testid="cypher-error">
      <p>{lead}{position ? head.replace(positionClause, '') : head}</p>
      {excerpt.length > 0 && <pre className="cypher-excerpt">{excerpt.join('\n')}</pre>}
      {position && (
        <p>
          At line {position.line}, column {position.column}.{' '}
          <button type="button" className="secondary" onClick={() => onShow(position.offset)}>Show in the editor</button>
        </p>
      )}
    </div>
  );
}

function CypherWorkbench() {
  const queryClient = useQueryClient();
  const editor = useRef<EditorView | null>(null);
  const text = useRef(firstQuery);
  const [params, setParams] = useState('{}');
  const [limit, setLimit] = useState(String(defaultLimit));
  const [formError, setFormError] = useState<string | null>(null);
  const run = useMutation({ mutationFn: (input: CypherInput) => runCypher(input).then((answer) => ({ input, answer })) });

  const submit = () => {
    if (run.isPending) return;
    let parsed: unknown;
    try {
      parsed = params.trim() ? JSON.parse(params) : {};
    } catch (err) {
      setFormError(`Parameters: not JSON (${(err as Error).message})`);
      return;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      setFormError('Parameters: a JSON object, e.g. {"slug": "brand-voice"}');
      return;
    }
    const n = Number(limit);
    if (!Number.isInteger(n) || n < 1 || n > maxLimit) {
      setFormError(`Limit: a whole number from 1 to ${maxLimit}`);
      return;
    }
    if (!text.current.trim()) {
      setFormError('Write a query first.');
      return;
    }
    setFormError(null);
    run.mutate({ query: text.current, params: parsed as Record<string, unknown>, limit: n });
  };

  const signOut = () => {
    analystSession.signOut('You are signed out of the Cypher page.');
    queryClient.removeQueries({ queryKey: ['analyst'] });
  };

  const answer = run.data?.answer;
  const summary = answer
    ? `${rowsText(answer.rowCount)} in ${answer.elapsedMs} ms${answer.truncated ? `; more were left out (${answer.truncatedBy === 'rows' ? `past the limit of ${answer.limit}` : 'past the size bound'})` : ''}`
    : '';

  return (
    <>
      <div className="cypher-title">
        <PageTitle text="Cypher" />
        <button type="button" className="secondary" onClick={signOut}>Sign out of Cypher</button>
      </div>
      <div className="cypher-layout">
        <div className="cypher-main">
          <form
            className="cypher-form"
            aria-label="Query"
            onSubmit={(e) => {
              e.preventDefault();
              submit();
            }}
          >
            <span className="label" id="cypher-query-label">Query</span>
            <CypherEditor initial={firstQuery} viewRef={editor} describedBy="cypher-query-help" onChange={(t) => (text.current = t)} onRun={submit} />
            <p id="cypher-query-help" className="muted small">
              One read-only statement (EXPLAIN or PROFILE in front adds its plan). Ctrl+Enter (⌘+Enter) runs it; Escape, then Tab, leaves the editor.
            </p>
            <div className="cypher-options">
              <div className="stack cypher-params-field">
                <label htmlFor="cypher-params">Parameters (JSON)</label>
                <textarea id="cypher-params" rows={2} value={params} onChange={(e) => setParams(e.target.value)} spellCheck={false} aria-describedby="cypher-params-help" />
                <span id="cypher-params-help" className="muted small">Used as $name in the query; whole numbers are sent as integers.</span>
              </div>
              <div className="stack">
                <label htmlFor="cypher-limit">Limit (rows)</label>
                <input id="cypher-limit" type="number" min={1} max={maxLimit} step={1} value={limit} onChange={(e) => setLimit(e.target.value)} />
              </div>
              <button type="submit" disabled={run.isPending}>{run.isPending ? 'Running…' : 'Run'}</button>
            </div>
            {formError && <p role="alert" className="error">{formError}</p>}
          </form>
          <QueryError error={run.error} onShow={(offset) => moveEditorCursor(editor.current, offset)} />
          {run.data && answer && (
            <CypherResults
              id="cypher-result"
              title="Result"
              columns={answer.columns}
              rows={answer.rows}
              summary={summary}
              plan={answer.plan}
              csv={() => cypherCsv(run.data.input)}
              fileName="cypher-result.csv"
            />
          )}
          <CypherReports />
        </div>
        <CypherSchema onPick={(q) => setEditorText(editor.current, q)} />
      </div>
    </>
  );
}

/** /console/cypher: ad-hoc read-only Cypher and the saved reports, for the operator's analysts. */
export default function CypherPage() {
  const { key: token } = useAnalystSession();
  const queryClient = useQueryClient();
  // Nothing read with one token is shown after it is gone (signed out, or refused).
  useEffect(() => {
    if (!token) queryClient.removeQueries({ queryKey: ['analyst'] });
  }, [token, queryClient]);
  return <section className="cypher-page">{token ? <CypherWorkbench /> : <AnalystSignIn />}</section>;
}
