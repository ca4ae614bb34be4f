import DOMPurify from 'dompurify';
import { marked } from 'marked';
import { useMemo } from 'react';
import { withoutInlineStyles } from './NodeInlineStyles.ts';

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

/** The node's content as sanitised HTML; [[slug]] reads as a link name. */
export function renderNodeMarkdown(text: string): string {
  sanitise ??= makeSanitiser(allowedImageOrigins());
  const linked = text.replace(/\[\[([^\]\n|]+)(\|[^\]\n]*)?\]\]/g, (_m, slug: string) => `**⟦${slug.trim()}⟧**`);
  return sanitise(withoutInlineStyles(marked.parse(linked, { async: false }) as string));
}

export function NodePreview({ text }: { text: string }) {
  const html = useMemo(() => renderNodeMarkdown(text), [text]);
  // Focusable so its sideways scroll (a wide table) can be reached with the keyboard.
  return <div className="preview node-preview" aria-label="Preview" role="region" tabIndex={0} dangerouslySetInnerHTML={{ __html: html }} />;
}
