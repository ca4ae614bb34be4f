import { type LinkType, linkTypes } from '@sdk';
import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { clientFor } from '../api.ts';
import { ErrorNote } from '../ui.tsx';
import '../styles/add-link.css';

/**
 * A typed link to a context node found by words of its title, description or aliases: from a node (its links
 * section) or from a playbook (its linked context). `idPrefix` keeps the two forms' ids apart;
 * `exclude` leaves a node out of the choices (a node does not link to itself); `link` makes the link.
 */
export function AddLinkForm({ ws, idPrefix, heading, findLabel, exclude, link, onAdded }: {
  ws: string;
  idPrefix: string;
  heading: string;
  findLabel: string;
  exclude?: string;
  link: (targetId: string, linkType: LinkType) => Promise<unknown>;
  onAdded: (text: string) => void;
}) {
  const [text, setText] = useState('');
  const [q, setQ] = useState('');
  const [targetId, setTargetId] = useState('');
  const [linkType, setLinkType] = useState<LinkType>('references');
  // Searching on every keystroke would send a request per letter.
  useEffect(() => {
    const t = setTimeout(() => setQ(text.trim()), 250);
    return () => clearTimeout(t);
  }, [text]);
  const found = useQuery({
    queryKey: ['nodes', ws, 'link-targets', q],
    queryFn: () => clientFor(ws).nodes.page(q ? { q, limit: 20 } : { sort: 'title', order: 'asc', limit: 20 }),
    placeholderData: keepPreviousData,
  });
  const choices = (found.data?.nodes ?? []).filter((n) => n.id !== exclude);
  const chosen = choices.find((n) => n.id === targetId) ?? choices[0];
  const add = useMutation({
    mutationFn: (v: { id: string; title: string; linkType: LinkType }) => link(v.id, v.linkType),
    onSuccess: (_r, v) => onAdded(`Linked to ${v.title} (${v.linkType}).`),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (chosen) add.mutate({ id: chosen.id, title: chosen.title, linkType });
  };
  const id = (name: string) => `${idPrefix}${name}`;
  return (
    <form className="add-link" aria-labelledby={id('add-link-title')} onSubmit={submit}>
      <h3 id={id('add-link-title')}>{heading}</h3>
      <div className="add-link-fields">
        <div>
          <label htmlFor={id('link-find')}>{findLabel}</label>
          <input id={id('link-find')} type="search" value={text} onChange={(e) => setText(e.target.value)} aria-describedby={id('link-find-help')} />
          <span id={id('link-find-help')} className="muted small">Words of its title, description or aliases.</span>
        </div>
        <div>
          <label htmlFor={id('link-target')}>Node</label>
          <select id={id('link-target')} value={chosen?.id ?? ''} onChange={(e) => setTargetId(e.target.value)} disabled={choices.length === 0}>
            {choices.length === 0 && <option value="">{found.isFetching ? 'Searching…' : 'No node found'}</option>}
            {choices.map((n) => <option key={n.id} value={n.id}>{n.title} ({n.slug})</option>)}
          </select>
        </div>
        <div>
          <label htmlFor={id('link-type')}>Link type</label>
          <select id={id('link-type')} value={linkType} onChange={(e) => setLinkType(e.target.value as LinkType)}>
            {linkTypes.map((t) => <option key={t} value={t}>{t}</option>)}
          </select>
        </div>
        <div className="add-link-submit">
          <button type="submit" disabled={!chosen || add.isPending}>Add link</button>
        </div>
      </div>
      <ErrorNote error={add.error ?? found.error} />
    </form>
  );
}
