import { labelSize } from './styles.ts';

/**
 * Where the workspace graph's labels go: each beside its node, whole inside the view and clear of the others.
 */

export interface Box { left: number; top: number; width: number; height: number }
export type View = { width: number; height: number };

/** A label gathered while sigma renders a frame, drawn after it by priority. */
export interface PendingLabel { key: string; text: string; x: number; y: number; radius: number; priority: number; bold: boolean }

export const clip = (text: string) => (text.length > 48 ? `${text.slice(0, 47)}…` : text);

/** A label's box beside its node: on the right, else on the left, kept inside the viewport. */
function labelBox(x: number, y: number, radius: number, width: number, view: View, side: 'right' | 'left'): Box {
  const height = labelSize + 4;
  let left = side === 'right' ? x + radius + 4 : x - radius - 4 - width;
  if (side === 'right' && left + width > view.width - 4) left = x - radius - 4 - width;
  if (side === 'left' && left < 4) left = x + radius + 4;
  left = Math.min(Math.max(4, left), Math.max(4, view.width - 4 - width));
  const top = Math.min(Math.max(2, y - height / 2), Math.max(2, view.height - 2 - height));
  return { left, top, width, height };
}

/** Inside the view with its margins (a label drawn past an edge would be cut there). */
const inside = (b: Box, view: View) => b.left >= 4 && b.top >= 2 && b.left + b.width <= view.width - 4 && b.top + b.height <= view.height - 2;

const overlaps = (a: Box, b: Box) => a.left < b.left + b.width + 3 && b.left < a.left + a.width + 3 && a.top < b.top + b.height + 1 && b.top < a.top + a.height + 1;

/**
 * Where a label goes: beside its node (right, then left), else centred below or above it, each whole inside the
 * view and clear of the labels already placed; failing those, beside the node pushed inside the view (over the
 * node if it must), so that no label is ever cut at the graph's edge. Null when every place is taken.
 */
export function placeLabel(x: number, y: number, radius: number, width: number, view: View, placed: Box[]): Box | null {
  const height = labelSize + 4;
  const centred = Math.min(Math.max(4, x - width / 2), Math.max(4, view.width - 4 - width));
  const candidates: Box[] = [
    { left: x + radius + 4, top: y - height / 2, width, height },
    { left: x - radius - 4 - width, top: y - height / 2, width, height },
    { left: centred, top: y + radius + 2, width, height },
    { left: centred, top: y - radius - 2 - height, width, height },
  ];
  const free = (b: Box) => !placed.some((p) => overlaps(p, b));
  const found = candidates.find((b) => inside(b, view) && free(b));
  if (found) return found;
  const pushed = [labelBox(x, y, radius, width, view, 'right'), labelBox(x, y, radius, width, view, 'left')];
  return pushed.find(free) ?? null;
}
