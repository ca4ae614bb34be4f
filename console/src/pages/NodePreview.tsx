import type { NodeDetail } from '@sdk';
import { useQueries } from '@tanstack/react-query';
import DOMPurify from 'dompurify';
import { Marked } from 'marked';
import { type MouseEvent, useMemo } from 'react';
import { useLocation, useRouter } from 'wouter';
import { clientFor } from '../api.ts';
import { withoutInlineStyles } from './NodeInlineStyles.ts';
import { type Resolution, resolver, targetsToRead, wikilinkExtension } from './NodeWikilinks.ts';

/**
 * The origins the page's CSP lets images come from besides its own: the operator's CONSOLE_IMAGE_ORIGINS, which
 * the server writes into a meta element next to the CSP it sends (src/console/routes.ts).
 */
function allowedImageOrigins(): Set<string> {
  const listed = document.querySelector<HTMLMetaElement>('meta[name="console-image-origins"]')?.content ?? '';
  return new Set([window.location.origin, ...listed.split(/\s+/).filter(Boolean)]);
}

/** The origin an image address loads from, or null for a data: image (which the CSP admits) or an unreadable address. */
function imageOrigin(src: string): { origin: string; host: string } | null {
  try {
    const url = new URL(src, window.location.href);
    if (url.protocol === 'data:') return null;
    return { origin: url.origin, host: url.host || src };
  } catch {
    return { origin: 'null', host: src };
  }
}

/**
 * A sanitiser of its own (its hooks stay off the shared instance) that keeps the preview inside the page's CSP
 * and inside the node's form:
 * - no style attribute or <style> element: markup put in with innerHTML cannot carry the CSP's nonce, so the
 *   browser would refuse them and report it (withoutInlineStyles takes them out even before this parses);
 * - an image from an origin the CSP does not allow becomes a note naming its host, so the browser never asks
 *   for it; other ways of loading media (srcset, poster, <video>, SVG images) are dropped;
 * - no form controls but read-only task-list boxes: the preview sits inside the node's form, where a button or
 *   a field of the note would submit or fill it.
 */
function makeSanitiser(allowed: Set<string>) {
  const purify = DOMPurify(window);
  purify.addHook('afterSanitizeAttributes', (node) => {
    const tag = node.nodeName.toLowerCase();
    if (tag === 'img') {
      const src = node.getAttribute('src') ?? '';
      const from = imageOrigin(src);
      if (src && from && !allowed.has(from.origin)) node.replaceWith(blockedImage(node.ownerDocument, from.host, node.getAttribute('alt') ?? ''));
    } else if (tag === 'input') {
      if (node.getAttribute('type') === 'checkbox') node.setAttribute('disabled', '');
      else node.remove();
    }
  });
  return (html: string) => purify.sanitize(html, {
    FORBID_TAGS: ['style', 'form', 'button', 'select', 'option', 'textarea', 'picture', 'source', 'video', 'audio', 'track', 'image', 'feImage'],
    FORBID_ATTR: ['style', 'srcset', 'poster', 'background'],
  });
}

function blockedImage(doc: Document, host: string, alt: string): HTMLElement {
  const note = doc.createElement('span');
  note.className = 'image-blocked';
  note.textContent = `Image not shown: ${host} is not an allowed image origin.`;
  if (alt) {
    const altText = doc.createElement('span');
    altText.className = 'image-alt';
    altText.textContent = `Alt text: ${alt}`;
    note.append(' ', altText);
  }
  return note;
}

let sanitise: ((html: string) => string) | null = null;

/** What the wikilink renderer asks while a text is rendered (rendering is synchronous: set, render, done). */
let rendering: { resolve: (key: string) => Resolution; nodeHref: (id: string) => string } = { resolve: () => ({ state: 'unsaved' }), nodeHref: (id) => id };
// Its own instance: the extension stays off marked's shared one.
const nodeMarked = new Marked({ extensions: [wikilinkExtension(() => rendering)] });

/**
 * The node's content as sanitised HTML: a [[wikilink]] is a link to the node it resolves to, with its label as
 * text, and an unresolved one says so.
 */
export function renderNodeMarkdown(text: string, resolve: (key: string) => Resolution, nodeHref: (id: string) => string): string {
  sanitise ??= makeSanitiser(allowedImageOrigins());
  rendering = { resolve, nodeHref };
  return sanitise(withoutInlineStyles(nodeMarked.parse(text, { async: false }) as string));
}

/** The targets read so far (a function of its own, so that TanStack Query keeps the same list while nothing changes). */
const loaded = (results: { data?: NodeDetail }[]) => results.flatMap((r) => (r.data ? [r.data] : []));

export function NodePreview({ ws, text, node }: { ws: string; text: string; node?: NodeDetail }) {
  // The targets named by an alias or a path are read for their names (the same queries as their own pages).
  const toRead = useMemo(() => targetsToRead(node, text), [node, text]);
  const targets = useQueries({
    queries: toRead.map((id) => ({ queryKey: ['node', ws, id], queryFn: () => clientFor(ws).nodes.get(id) })),
    combine: loaded,
  });
  const resolve = useMemo(() => resolver(node, targets), [node, targets]);
  return <WikilinkedMarkdown text={text} resolve={resolve} label="Preview" className="node-preview" />;
}

/**
 * Markdown as the preview shows it, its [[wikilinks]] as `resolve` says: a resolved one is a link that opens its
 * node in the console, as any link of the page does. The node editor and the playbook pages share it.
 */
export function WikilinkedMarkdown({ text, resolve, label, className = '' }: { text: string; resolve: (key: string) => Resolution; label: string; className?: string }) {
  const base = useRouter().base;
  const [, navigate] = useLocation();
  const html = useMemo(() => renderNodeMarkdown(text, resolve, (id) => `${base}/nodes/${encodeURIComponent(id)}`), [text, resolve, base]);
  const follow = (e: MouseEvent<HTMLDivElement>) => {
    const link = (e.target as Element).closest<HTMLAnchorElement>('a[data-node-id]');
    if (!link || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(`/nodes/${encodeURIComponent(link.dataset.nodeId!)}`);
  };
  // Focusable so its sideways scroll (a wide table) can be reached with the keyboard.
  return <div className={`preview ${className}`.trim()} aria-label={label} role="region" tabIndex={0} onClick={follow} dangerouslySetInnerHTML={{ __html: html }} />;
}
