import type { LinkType, NodeType } from '@sdk';

/** How the graph views look: colours by node type, link and label; the labels' font. */

// Looked up by any string (with a fallback), and checked to name every node and link type of the API.
export const typeColours: Record<string, string> = {
  playbook: '#111111',
  brand: '#c2185b',
  process: '#1565c0',
  reference: '#2e7d32',
  'domain-knowledge': '#6a1b9a',
  example: '#ef6c00',
  index: '#00838f',
} satisfies Record<NodeType | 'playbook', string>;

export interface LinkStyle { color: string; size: number; type: 'arrow' | 'line' }
export const linkStyles: Record<string, LinkStyle> = {
  requires: { color: '#b71c1c', size: 2.5, type: 'arrow' },
  references: { color: '#9e9e9e', size: 1, type: 'arrow' },
  'relates-to': { color: '#c5cae9', size: 1, type: 'line' },
  supersedes: { color: '#6a1b9a', size: 2, type: 'arrow' },
  'index-entry': { color: '#80cbc4', size: 1, type: 'line' },
} satisfies Record<LinkType, LinkStyle>;

/** A #rrggbb colour 70% of the way to white. */
export const paler = (hex: string) => `#${[1, 3, 5].map((i) => Math.round(parseInt(hex.slice(i, i + 2), 16) * 0.3 + 255 * 0.7).toString(16).padStart(2, '0')).join('')}`;

// Distinct on white and on each other; a Cypher answer's label's colour is its first label's place in the answer's list.
const palette = ['#1565c0', '#c2185b', '#2e7d32', '#6a1b9a', '#ef6c00', '#00838f', '#5d4037', '#455a64', '#ad1457', '#283593'];

/**
 * Cluster colours, for a graph whose nodes are all of one type (an imported vault's notes are all `reference`): the
 * biggest clusters get the palette, the rest one grey, notes without links a paler one.
 */
export const clusterColours = palette.slice(0, 8);
export const otherClusterColour = '#8d8d8d';
export const unlinkedColour = '#c4c4c4';

/** A colour for each of the labels given, in their sorted order. */
export function paletteFor(labels: Iterable<string>): Map<string, string> {
  const sorted = [...new Set(labels)].sort();
  return new Map(sorted.map((l, i) => [l, palette[i % palette.length]]));
}

export const labelFont = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
export const labelSize = 12;
