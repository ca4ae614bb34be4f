import { type LinkType, type LinkView, type NodeDetail, linkTypes } from '@sdk';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import { clientFor } from '../api.ts';
import { ConfirmButton, ErrorNote } from '../ui.tsx';

/**
 * "§ Heading, § ^block" after a wikilink's other end: the sections of the target its wikilinks name
 * (on an incoming link, sections of this node: "→ § Heading").
 */
function Sections({ sections, incoming = false }: { sections: readonly string[]; incoming?: boolean }) {
  if (sections.length === 0) return null;
  return (
    <>
      {' '}
      <span className="link-sections">
        {incoming && '→ '}
        {sections.map((s, i) => <span key={s} className="link-section">{i > 0 && ', '}§ {s}</span>)}
      </span>
    </>
  );
}

/**
 * Removes a manual link from either end: the service deletes a link through its source (a node or a playbook),
 * so an incoming link is deleted through the node or playbook it comes from. A wikilink goes with its text.
 */
function RemoveLink({ ws, link, otherEnd, direction, onRemoved }: { ws: string; link: LinkView; otherEnd: string; direction: 'to' | 'from'; onRemoved: () => void }) {
  const remove = useMutation({
    mutationFn: () => (link.sourceType === 'playbook'
      ? clientFor(ws).links.deleteFromPlaybook(link.sourceId, link.id)
      : clientFor(ws).links.deleteFromNode(link.sourceId, link.id)),
    onSuccess: onRemoved,
  });
  if (link.origin === 'wikilink') {
    return <span className="muted small">{direction === 'to' ? 'edit the content to remove it' : 'remove it in the source’s content'}</span>;
  }
  const name = `the ${link.linkType} link ${direction} ${otherEnd}`;
  return (
    <>
      <ConfirmButton
        label="Remove"
        ariaLabel={`Remove ${name}`}
        question={`Remove ${name}?`}
        confirmLabel="Remove link"
        className="secondary small-button"
        pending={remove.isPending}
        onConfirm={() => remove.mutate()}
      />
      <ErrorNote error={remove.error} />
    </>
  );
}

/** A typed link from this node to another one, found by title, slug or alias. */
function AddLink({ ws, node, onAdded }: { ws: string; node: NodeDetail; onAdded: () => void }) {
  const [text, setText] = useState('');
  const [q, setQ] = useState('');
  const [targetId, setTargetId] = useState('');
  const [linkType, setLinkType] = useState<LinkType>('references');
  const [added, setAdded] = useState<string | null>(null);
  useEffect(() => {
    const t = setTimeout(() => setQ(text.trim()), 250);
    return () => clearTimeout(t);
  }, [text]);
  const found = useQuery({
    queryKey: ['nodes', ws, 'link-targets', q],
    queryFn: () => clientFor(ws).nodes.page(q ? { q, limit: 20 } : { sort: 'title', order: 'asc', limit: 20 }),
    placeholderData: keepPreviousData,
  });
  const choices = (found.data?.nodes ?? []).filter((n) => n.id !== node.id);
  const chosen = choices.find((n) => n.id === targetId) ?? choices[0];
  const add = useMutation({
    mutationFn: () => clientFor(ws).links.fromNode(node.id, { targetId: chosen!.id, linkType }),
    onSuccess: () => {
      setAdded(`Linked to ${chosen!.title} (${linkType}).`);
      onAdded();
    },
  });
  const submit = (e: FormEvent) => { e.preventDefault(); if (chosen) { setAdded(null); add.mutate(); } };
  return (
    <form className="add-link" aria-labelledby="add-link-title" onSubmit={submit}>
      <h3 id="add-link-title">Add a link</h3>
      <div className="add-link-fields">
        <div>
          <label htmlFor="link-find">Find the node to link to</label>
          <input id="link-find" type="search" value={text} onChange={(e) => setText(e.target.value)} aria-describedby="link-find-help" />
          <span id="link-find-help" className="muted small">Words of its title, description or aliases.</span>
        </div>
        <div>
          <label htmlFor="link-target">Node</label>
          <select id="link-target" value={chosen?.id ?? ''} onChange={(e) => setTargetId(e.target.value)} disabled={choices.length === 0}>
            {choices.length === 0 && <option value="">{found.isFetching ? 'Searching…' : 'No node found'}</option>}
            {choices.map((n) => <option key={n.id} value={n.id}>{n.title} ({n.slug})</option>)}
          </select>
        </div>
        <div>
          <label htmlFor="link-type">Link type</label>
          <select id="link-type" value={linkType} onChange={(e) => setLinkType(e.target.value as LinkType)}>
            {linkTypes.map((t) => <option key={t} value={t}>{t}</option>)}
          </select>
        </div>
        <div className="add-link-submit">
          <button type="submit" disabled={!chosen || add.isPending}>Add link</button>
        </div>
      </div>
      <p role="status" className="status-line">{added}</p>
      <ErrorNote error={add.error ?? found.error} />
    </form>
  );
}

/** The node's outgoing, incoming and unresolved links; manual links are added here and removed from either end. */
export function NodeLinks({ ws, node }: { ws: string; node: NodeDetail }) {
  const queryClient = useQueryClient();
  // Both ends show the link, and the graph draws it.
  const changed = () => {
    void queryClient.invalidateQueries({ queryKey: ['node', ws] });
    void queryClient.invalidateQueries({ queryKey: ['graph', ws] });
  };
  const title = node.title;
  return (
    <section aria-labelledby="links-title" className="node-links">
      <h2 id="links-title">Links</h2>
      <div className="node-links-grid">
        <div>
          <h3>Outgoing</h3>
          <ul data-testid="outgoing-links">
            {node.outgoingLinks.map((l) => (
              <li key={l.id} data-link-id={l.id}>
                <Link href={`/nodes/${l.targetId}`}>{l.title}</Link><Sections sections={l.sections} /> <span className="muted small">{l.linkType} · {l.origin}</span>{' '}
                <RemoveLink ws={ws} link={l} otherEnd={l.title} direction="to" onRemoved={changed} />
              </li>
            ))}
          </ul>
          {node.outgoingLinks.length === 0 && <p className="muted">None.</p>}
        </div>
        <div>
          <h3>Incoming</h3>
          <ul data-testid="incoming-links">
            {node.incomingLinks.map((l) => (
              <li key={l.id} data-link-id={l.id}>
                <Link href={l.sourceType === 'playbook' ? `/playbooks/${l.sourceId}` : `/nodes/${l.sourceId}`}>{l.title}</Link>
                <Sections sections={l.sections} incoming /> <span className="muted small">{l.linkType} · {l.origin}</span>{' '}
                <RemoveLink ws={ws} link={l} otherEnd={l.title} direction="from" onRemoved={changed} />
              </li>
            ))}
          </ul>
          {node.incomingLinks.length === 0 && <p className="muted">None.</p>}
        </div>
        <div>
          <h3>Unresolved</h3>
          <ul data-testid="unresolved-links">
            {node.unresolvedLinks.map((s) => <li key={s}><code>[[{s}]]</code></li>)}
          </ul>
          {node.unresolvedLinks.length === 0 && <p className="muted">None.</p>}
        </div>
      </div>
      <AddLink key={title} ws={ws} node={node} onAdded={changed} />
    </section>
  );
}
