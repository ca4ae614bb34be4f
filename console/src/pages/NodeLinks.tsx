import type { LinkView, NodeDetail } from '@sdk';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'wouter';
import { clientFor } from '../api.ts';
import { ConfirmButton, ErrorNote } from '../ui.tsx';
import { AddLinkForm } from './AddLinkForm.tsx';

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
        danger
        className="secondary small-button"
        pending={remove.isPending}
        onConfirm={() => remove.mutate()}
      />
      <ErrorNote error={remove.error} />
    </>
  );
}

/** The node's outgoing, incoming and unresolved links; manual links are added here and removed from either end. */
export function NodeLinks({ ws, node }: { ws: string; node: NodeDetail }) {
  const queryClient = useQueryClient();
  const [added, setAdded] = useState<string | null>(null);
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
      <AddLinkForm
        key={title}
        ws={ws}
        idPrefix=""
        heading="Add a link"
        findLabel="Find the node to link to"
        exclude={node.id}
        link={(targetId, linkType) => clientFor(ws).links.fromNode(node.id, { targetId, linkType })}
        onAdded={(text) => { setAdded(text); changed(); }}
      />
      <p role="status" className="status-line">{added}</p>
    </section>
  );
}
