// The inbox's bookkeeping: which item is selected, where j/k move it, what is selected once the
// selected one was answered, and which keys do what.
import type { PendingItem } from './types.js';
import { notAShortcut, type KeyLike, type TargetLike } from './shortcuts.js';

export type InboxKey = 'next' | 'previous';

/** `j` and `k` move the selection, unless the person types somewhere or holds a modifier. */
export function inboxKeyOf(event: KeyLike, target: TargetLike | null): InboxKey | null {
  if (notAShortcut(event, target)) return null;
  if (event.key === 'j') return 'next';
  if (event.key === 'k') return 'previous';
  return null;
}

/** The id of a pending item (its request's or question's). */
export const itemId = (item: PendingItem): string => (item.kind === 'permission' ? item.permission.id : item.question.id);

/** The selection after a move (stays at the ends). */
export function moved(items: readonly PendingItem[], selected: string | null, key: InboxKey): string | null {
  if (items.length === 0) return null;
  const at = items.findIndex((i) => itemId(i) === selected);
  if (at < 0) return itemId(items[0]!);
  const next = key === 'next' ? Math.min(items.length - 1, at + 1) : Math.max(0, at - 1);
  return itemId(items[next]!);
}

/**
 * The items once `fresh` came (a reload): what was answered here meanwhile stays out, and the
 * selection stays where it was, or moves to the item that took the place of one gone.
 */
export function merged(before: readonly PendingItem[], fresh: readonly PendingItem[], selected: string | null, answered: ReadonlySet<string>): { items: PendingItem[]; selected: string | null } {
  const items = fresh.filter((i) => !answered.has(itemId(i)));
  if (items.length === 0) return { items, selected: null };
  // Nothing selected yet: the oldest.
  if (selected === null) return { items, selected: itemId(items[0]!) };
  if (items.some((i) => itemId(i) === selected)) return { items, selected };
  // The selected one is gone: the next of the old order that is still there, else the last.
  const at = before.findIndex((i) => itemId(i) === selected);
  const still = new Set(items.map(itemId));
  for (let k = Math.max(0, at); k < before.length; k++) if (still.has(itemId(before[k]!))) return { items, selected: itemId(before[k]!) };
  return { items, selected: itemId(items[items.length - 1]!) };
}

/** The items without one answered here, and the selection moved to the one after it. */
export function withoutAnswered(items: readonly PendingItem[], id: string, selected: string | null): { items: PendingItem[]; selected: string | null } {
  const at = items.findIndex((i) => itemId(i) === id);
  const rest = items.filter((i) => itemId(i) !== id);
  if (selected !== id) return { items: rest, selected };
  if (rest.length === 0) return { items: rest, selected: null };
  return { items: rest, selected: itemId(rest[Math.min(at, rest.length - 1)]!) };
}
