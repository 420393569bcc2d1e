// How deep a JSON value nests, found without recursion (a value nested 10,000 deep must not
// overflow the stack of whatever looks at it later: digests, clones, the store). Every JSON value
// the server accepts from outside (request bodies, a model's tool input) is held to MAX_JSON_DEPTH.

export const MAX_JSON_DEPTH = 64;

/** True when `value` has arrays or objects nested more than `max` levels deep. */
export function nestedDeeperThan(value: unknown, max: number = MAX_JSON_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth + 1 > max) return true;
    const children = Array.isArray(v) ? v : Object.values(v as Record<string, unknown>);
    for (const c of children) if (c !== null && typeof c === 'object') stack.push([c, depth + 1]);
  }
  return false;
}

/**
 * The same judgement on JSON text before it is parsed, in one linear pass (JSON.parse itself
 * spends seconds on a body of millions of nested brackets). Brackets inside strings do not count.
 */
export function textNestedDeeperThan(text: string, max: number = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}
