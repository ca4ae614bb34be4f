import type { PlaybookDetail } from '@sdk';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'wouter';
import { clientFor } from '../api.ts';
import { ConfirmButton, ErrorNote } from '../ui.tsx';
import { AddLinkForm } from './AddLinkForm.tsx';
import '../styles/playbook-links.css';

type LinkedNode = PlaybookDetail['contextNodes'][number];

/** One linked node with its Remove button, which asks first. */
function LinkedRow({ ws, playbookId, link, onRemoved }: { ws: string; playbookId: string; link: LinkedNode; onRemoved: (text: string) => void }) {
  const remove = useMutation({
    mutationFn: () => clientFor(ws).links.deleteFromPlaybook(playbookId, link.linkId),
    onSuccess: () => onRemoved(`Removed the ${link.linkType} link to ${link.title}.`),
  });
  const name = `the ${link.linkType} link to ${link.title}`;
  return (
    <li data-link-id={link.linkId} data-node-id={link.id} data-link-type={link.linkType}>
      <span className="badge pb-link-type">{link.linkType}</span>{' '}
      <Link href={`/nodes/${link.id}`}>{link.title}</Link>
      {link.status === 'archived' && <span className="muted small"> (archived node)</span>}{' '}
      <ConfirmButton
        label="Remove"
        ariaLabel={`Remove ${name}`}
        question={`Remove ${name}? Agents stop getting it in this playbook’s bundle.`}
        confirmLabel="Remove link"
        danger
        className="secondary small-button"
        pending={remove.isPending}
        onConfirm={() => remove.mutate()}
      />
      <ErrorNote error={remove.error} />
    </li>
  );
}

/** The playbook's links to context nodes (what its bundle starts from): listed, added and removed. */
export function PlaybookLinks({ ws, playbook }: { ws: string; playbook: PlaybookDetail }) {
  const queryClient = useQueryClient();
  const [message, setMessage] = useState<string | null>(null);
  // The playbook's page lists the links; the node's page shows them as incoming, and the graph draws them.
  const changed = (text: string) => {
    setMessage(text);
    void queryClient.invalidateQueries({ queryKey: ['playbook', ws, playbook.id] });
    void queryClient.invalidateQueries({ queryKey: ['node', ws] });
    void queryClient.invalidateQueries({ queryKey: ['graph', ws] });
  };
  const links = playbook.contextNodes;
  return (
    <section aria-labelledby="pb-links-title" className="pb-links">
      <h2 id="pb-links-title">Linked context</h2>
      {links.length === 0 ? (
        <p className="pb-links-empty" data-testid="playbook-links-empty">
          No context linked yet: add a node below, and agents get it in this playbook’s bundle.
        </p>
      ) : (
        <ul className="pb-link-list" data-testid="playbook-links">
          {links.map((l) => <LinkedRow key={l.linkId} ws={ws} playbookId={playbook.id} link={l} onRemoved={changed} />)}
        </ul>
      )}
      <p role="status" aria-live="polite" className="status-line">{message}</p>
      <AddLinkForm
        ws={ws}
        idPrefix="pb-"
        heading="Add a node"
        findLabel="Find the node"
        link={(targetId, linkType) => clientFor(ws).links.fromPlaybook(playbook.id, { targetId, linkType })}
        onAdded={changed}
      />
    </section>
  );
}
