import type { NodeDetail } from '@sdk';
import type { RendererExtension, Token, TokenizerExtension, Tokens } from 'marked';

/**
 * The preview's [[wikilinks]], read as the service reads them (docs/graph-model.md, "Wikilinks"): `[[Name]]`,
 * `[[Name|label]]` (in a table `[[Name\|label]]`), `![[Name]]`, `[[Name#Heading]]`, `[[Name.md]]`. Which node a name
 * stands for is the service's answer, from the node as last read: its links (each with its target's slug and title),
 * the names none of its nodes has (`unresolvedLinks`), and for a target named otherwise (an alias, a file path) that
 * target's own names.
 */

/** What `[[inner]]` names: the note (undefined for `[[#Heading]]`, a section of this note) and the section. */
export function wikilinkName(inner: string): { name: string | undefined; section: string | null; label: string | null } {
  const pipe = inner.indexOf('|');
  const target = (pipe === -1 ? inner : inner.slice(0, pipe)).replace(/\\$/, '');
  const label = pipe === -1 ? null : inner.slice(pipe + 1).trim() || null;
  const hash = target.indexOf('#');
  let name = (hash === -1 ? target : target.slice(0, hash)).trim().normalize('NFC');
  if (/\.md$/i.test(name)) name = name.slice(0, -3).trimEnd();
  const section = hash === -1 ? null : target.slice(hash + 1).trim() || null;
  return { name: name || undefined, section, label };
}

/** The key names are compared by (the service's too): NFC, lowercased. */
export const nameKey = (name: string) => name.normalize('NFC').toLowerCase();

const wikilinkPattern = /\[\[([^[\]\n]+?)\]\]/g;

/** The keys of every wikilink in a text (in code too: a superset is enough to tell saved names from new ones). */
export function wikilinkKeys(text: string): Set<string> {
  const keys = new Set<string>();
  for (const m of text.matchAll(wikilinkPattern)) {
    const { name } = wikilinkName(m[1]);
    if (name) keys.add(nameKey(name));
  }
  return keys;
}

/** The names a node answers to, as the service ranks them: slug, file name and path tails, title, aliases. */
export function namesOf(node: Pick<NodeDetail, 'slug' | 'title' | 'aliases' | 'sourcePath'>): string[] {
  const names = [node.slug];
  if (node.sourcePath) {
    const segments = node.sourcePath.replace(/\.md$/i, '').split('/');
    for (let i = segments.length - 1; i >= 0; i--) names.push(segments.slice(i).join('/'));
  }
  names.push(node.title, ...(node.aliases ?? []));
  return names.map((n) => nameKey(n.trim())).filter(Boolean);
}

/** What a wikilink's name stands for in the preview. */
export type Resolution =
  | { state: 'resolved'; nodeId: string; title: string }
  /** No node of the workspace has the name (the service says so). */
  | { state: 'unresolved' }
  /** Written since the last save: the service resolves it when the note is saved. */
  | { state: 'unsaved' }
  /** Saved, but the service makes no link of it (an attachment such as `[[diagram.png]]`), or its target is still being read. */
  | { state: 'plain' };

/** The most targets read for their other names at once: a note naming more by alias shows the rest plainly. */
const maxTargetsRead = 50;

/**
 * The targets of the node's links to read for their other names: none while every name of `text` is known by the
 * links' slugs and titles (or is unresolved, or the node's own); else every target, since any may be the one an
 * alias or a path names (at most `maxTargetsRead`; each is cached as its own page's query).
 */
export function targetsToRead(node: NodeDetail | undefined, text: string): string[] {
  if (!node) return [];
  const links = node.outgoingLinks.filter((l) => l.sourceType === 'context_node');
  const known = new Set([...node.unresolvedLinks.map(nameKey), ...namesOf(node), ...links.flatMap((l) => [nameKey(l.slug), nameKey(l.title)])]);
  if ([...wikilinkKeys(text)].every((k) => known.has(k))) return [];
  return [...new Set(links.map((l) => l.targetId))].slice(0, maxTargetsRead);
}

/**
 * A name's resolution from the node as last read and the targets read for their other names. The node's own names
 * link to itself (the service makes no link of them, and keeps none unresolved).
 */
export function resolver(node: NodeDetail | undefined, targets: readonly NodeDetail[]): (key: string) => Resolution {
  if (!node) return () => ({ state: 'unsaved' });
  const byName = new Map<string, { nodeId: string; title: string }>();
  // Stronger names first: a slug over a title over an alias, as the service ranks them.
  for (const l of node.outgoingLinks) if (l.sourceType === 'context_node') byName.set(nameKey(l.slug), { nodeId: l.targetId, title: l.title });
  for (const t of targets) for (const k of namesOf(t)) if (!byName.has(k)) byName.set(k, { nodeId: t.id, title: t.title });
  for (const l of node.outgoingLinks) if (l.sourceType === 'context_node' && !byName.has(nameKey(l.title))) byName.set(nameKey(l.title), { nodeId: l.targetId, title: l.title });
  for (const k of namesOf(node)) if (!byName.has(k)) byName.set(k, { nodeId: node.id, title: node.title });
  const unresolved = new Set(node.unresolvedLinks.map(nameKey));
  const saved = wikilinkKeys(node.content);
  return (key) => {
    if (unresolved.has(key)) return { state: 'unresolved' };
    const found = byName.get(key);
    if (found) return { state: 'resolved', ...found };
    return saved.has(key) ? { state: 'plain' } : { state: 'unsaved' };
  };
}

interface WikilinkToken extends Tokens.Generic {
  type: 'wikilink';
  raw: string;
  key: string | null;
  text: string;
  tokens: Token[];
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * marked's reading of `[[…]]` and `![[…]]`: the label (else the name, and its section after "›") as inline
 * markdown; a resolved name as a link to its node's page (`nodeHref`), any other plainly, marked as what it is.
 * `resolve` is asked at render time, so one extension serves every render.
 */
export function wikilinkExtension(current: () => { resolve: (key: string) => Resolution; nodeHref: (id: string) => string }): TokenizerExtension & RendererExtension {
  return {
    name: 'wikilink',
    level: 'inline',
    start: (src) => {
      const at = src.indexOf('[[');
      return at === -1 ? undefined : at > 0 && src[at - 1] === '!' ? at - 1 : at;
    },
    tokenizer(src) {
      const m = /^!?\[\[([^[\]\n]+?)\]\]/.exec(src);
      if (!m) return undefined;
      const { name, section, label } = wikilinkName(m[1]);
      const text = label ?? (name ? (section ? `${name} › ${section}` : name) : `› ${section ?? ''}`);
      const token: WikilinkToken = { type: 'wikilink', raw: m[0], key: name ? nameKey(name) : null, text, tokens: [] };
      this.lexer.inlineTokens(text, token.tokens);
      return token;
    },
    renderer(token) {
      const t = token as WikilinkToken;
      const inner = this.parser.parseInline(t.tokens);
      const { resolve, nodeHref } = current();
      const found: Resolution = t.key === null ? { state: 'plain' } : resolve(t.key);
      switch (found.state) {
        case 'resolved':
          return `<a class="wikilink" href="${escapeHtml(nodeHref(found.nodeId))}" data-node-id="${escapeHtml(found.nodeId)}" title="${escapeHtml(found.title)}">${inner}</a>`;
        case 'unresolved':
          return `<span class="wikilink wikilink-unresolved" data-wikilink="unresolved" title="Unresolved: no node has this name">${inner}<span class="visually-hidden"> (unresolved link)</span></span>`;
        case 'unsaved':
          return `<span class="wikilink wikilink-unsaved" data-wikilink="unsaved" title="Linked when the note is saved">${inner}<span class="visually-hidden"> (link not saved yet)</span></span>`;
        default:
          return `<span class="wikilink-plain">${inner}</span>`;
      }
    },
  };
}
