import { type Visibility, visibilities } from '@sdk';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useLocation } from 'wouter';
import { clientFor } from '../api.ts';
import { ErrorNote } from '../ui.tsx';

/** Comma-separated tags as the list the API takes (the service drops duplicates). */
const tagList = (text: string) => text.split(',').map((t) => t.trim()).filter(Boolean);

const visibilityText: Record<Visibility, string> = {
  workspace_private: 'this workspace only',
  parent_readonly: 'also readable from the parent workspace',
};

/**
 * A new playbook with its draft version 1 (POST …/playbooks). The slug is optional (made from the title); the
 * instructions may be left for a later version, written with the editor.
 */
export function PlaybookCreate({ ws, headingId }: { ws: string; headingId: string }) {
  const [fields, setFields] = useState({ title: '', slug: '', summary: '', functionArea: '', tags: '', visibility: 'workspace_private' as Visibility, instructions: '' });
  const set = <K extends keyof typeof fields>(k: K, v: (typeof fields)[K]) => setFields((f) => ({ ...f, [k]: v }));
  const [, navigate] = useLocation();
  const queryClient = useQueryClient();
  const create = useMutation({
    mutationFn: () => {
      const tags = tagList(fields.tags);
      return clientFor(ws).playbooks.create({
        title: fields.title.trim(),
        ...(fields.slug.trim() ? { slug: fields.slug.trim() } : {}),
        ...(fields.summary.trim() ? { summary: fields.summary.trim() } : {}),
        ...(fields.functionArea.trim() ? { functionArea: fields.functionArea.trim() } : {}),
        ...(tags.length ? { tags } : {}),
        visibility: fields.visibility,
        version: { content: fields.instructions.trim() ? { instructions: fields.instructions } : {} },
      });
    },
    onSuccess: (p) => {
      void queryClient.invalidateQueries({ queryKey: ['playbooks', ws] });
      navigate(`/playbooks/${p.id}`);
    },
  });
  const submit = (e: FormEvent) => { e.preventDefault(); create.mutate(); };
  return (
    <form onSubmit={submit} aria-labelledby={headingId} className="grid2">
      <div>
        <label htmlFor="new-pb-title">Title</label>
        <input id="new-pb-title" value={fields.title} onChange={(e) => set('title', e.target.value)} required maxLength={200} />
      </div>
      <div>
        <label htmlFor="new-pb-slug">Slug (optional)</label>
        <input id="new-pb-slug" value={fields.slug} onChange={(e) => set('slug', e.target.value)} aria-describedby="new-pb-slug-help" />
        <span id="new-pb-slug-help" className="muted small">Made from the title when empty; it does not change later.</span>
      </div>
      <div className="wide">
        <label htmlFor="new-pb-summary">Summary (optional)</label>
        <input id="new-pb-summary" value={fields.summary} onChange={(e) => set('summary', e.target.value)} />
      </div>
      <div>
        <label htmlFor="new-pb-area">Function area (optional)</label>
        <input id="new-pb-area" value={fields.functionArea} onChange={(e) => set('functionArea', e.target.value)} maxLength={200} placeholder="e.g. support" />
      </div>
      <div>
        <label htmlFor="new-pb-tags">Tags (optional)</label>
        <input id="new-pb-tags" value={fields.tags} onChange={(e) => set('tags', e.target.value)} aria-describedby="new-pb-tags-help" />
        <span id="new-pb-tags-help" className="muted small">Separated by commas, e.g. onboarding, billing. At most 50.</span>
      </div>
      <div>
        <label htmlFor="new-pb-visibility">Visibility</label>
        <select id="new-pb-visibility" value={fields.visibility} onChange={(e) => set('visibility', e.target.value as Visibility)}>
          {visibilities.map((v) => <option key={v} value={v}>{visibilityText[v]}</option>)}
        </select>
      </div>
      <div className="wide">
        <label htmlFor="new-pb-instructions">Instructions of version 1 (markdown, optional)</label>
        <textarea id="new-pb-instructions" rows={4} value={fields.instructions} onChange={(e) => set('instructions', e.target.value)} aria-describedby="new-pb-instructions-help" />
        <span id="new-pb-instructions-help" className="muted small">Version 1 is a draft; write later versions with the editor on the playbook’s page.</span>
      </div>
      <div className="wide">
        <button type="submit" disabled={create.isPending}>Create playbook</button>
        <ErrorNote error={create.error} />
      </div>
    </form>
  );
}
