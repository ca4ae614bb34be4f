import type { SchemaConstraint, SchemaIndex } from '@sdk';
import { useQuery } from '@tanstack/react-query';
import { ErrorNote, Loading } from '../ui.tsx';
import { readSchema } from './CypherCalls.ts';

/** A name as Cypher takes it: backquoted unless it is a plain identifier. */
const quoted = (name: string) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : '`' + name.replaceAll('`', '``') + '`');

function Entries({ rows }: { rows: (SchemaIndex | SchemaConstraint)[] }) {
  if (rows.length === 0) return <p className="muted small">None.</p>;
  return (
    <ul className="cypher-schema-list">
      {rows.map((r) => (
        <li key={r.name}>
          <code>{r.name}</code>{' '}
          <span className="muted small">
            {r.type} on {r.labelsOrTypes?.join(', ') || 'all'}
            {r.properties?.length ? ` (${r.properties.join(', ')})` : ''}
            {'state' in r && r.state !== 'ONLINE' ? `, ${r.state}` : ''}
          </span>
        </li>
      ))}
    </ul>
  );
}

/**
 * The graph's schema (readGraphSchema, the operation of the Cypher shell's `:schema` too): labels and
 * relationship types (a click puts a query for them in the editor), property keys, indexes and constraints.
 */
export function CypherSchema({ onPick }: { onPick: (query: string) => void }) {
  const schema = useQuery({ queryKey: ['analyst', 'schema'], queryFn: readSchema, staleTime: 60_000 });
  return (
    <aside className="cypher-schema" aria-labelledby="cypher-schema-title" data-testid="cypher-schema">
      <div className="inline">
        <h2 id="cypher-schema-title">Schema</h2>
        <button type="button" className="secondary" onClick={() => schema.refetch()} disabled={schema.isFetching}>
          Refresh
        </button>
      </div>
      {schema.isPending && <Loading what="Reading the schema" />}
      <ErrorNote error={schema.error} />
      {schema.data && (
        <>
          <h3>Labels ({schema.data.labels.length})</h3>
          <ul className="cypher-chips" aria-label="Labels">
            {schema.data.labels.map((l) => (
              <li key={l}>
                <button type="button" className="cypher-chip" aria-label={`Query label ${l}`} onClick={() => onPick(`MATCH (n:${quoted(l)})\nRETURN n\nLIMIT 25`)}>
                  {l}
                </button>
              </li>
            ))}
          </ul>
          <h3>Relationship types ({schema.data.relationshipTypes.length})</h3>
          <ul className="cypher-chips" aria-label="Relationship types">
            {schema.data.relationshipTypes.map((t) => (
              <li key={t}>
                <button type="button" className="cypher-chip" aria-label={`Query relationship type ${t}`} onClick={() => onPick(`MATCH p = ()-[:${quoted(t)}]->()\nRETURN p\nLIMIT 25`)}>
                  {t}
                </button>
              </li>
            ))}
          </ul>
          <details>
            <summary>Property keys ({schema.data.propertyKeys.length})</summary>
            <p className="cypher-keys">{schema.data.propertyKeys.map((k) => <code key={k}>{k}</code>)}</p>
          </details>
          <details>
            <summary>Indexes ({schema.data.indexes.length})</summary>
            <Entries rows={schema.data.indexes} />
          </details>
          <details>
            <summary>Constraints ({schema.data.constraints.length})</summary>
            <Entries rows={schema.data.constraints} />
          </details>
        </>
      )}
    </aside>
  );
}
