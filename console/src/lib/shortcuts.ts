// Keyboard shortcuts of the waiting requests: `a` allows the first one, `d` denies it, unless
// the person is typing somewhere (an input, a textarea, a select, an editable element) or
// holds a modifier.

export type Shortcut = 'allow' | 'deny';

export interface KeyLike {
  key: string;
  ctrlKey?: boolean;
  metaKey?: boolean;
  altKey?: boolean;
  defaultPrevented?: boolean;
}

export interface TargetLike {
  tagName?: string;
  isContentEditable?: boolean;
}

const TYPING = new Set(['INPUT', 'TEXTAREA', 'SELECT']);

/** Whether a key press is the person typing (in a field, with a modifier, or already handled): no shortcut then. */
export function notAShortcut(event: KeyLike, target: TargetLike | null): boolean {
  if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return true;
  return target !== null && (TYPING.has((target.tagName ?? '').toUpperCase()) || target.isContentEditable === true);
}

export function shortcutOf(event: KeyLike, target: TargetLike | null): Shortcut | null {
  if (notAShortcut(event, target)) return null;
  if (event.key === 'a') return 'allow';
  if (event.key === 'd') return 'deny';
  return null;
}
