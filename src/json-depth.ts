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

export interface JsonBounds {
  /** Arrays and objects nested deeper than this break the bound. */
  maxDepth: number;
  /** More values than this (every array, object, string, number…) break the bound. */
  maxValues: number;
}

/**
 * Which bound a parsed value breaks, or null, found without recursion and in time linear in the
 * values seen up to the bound: a value from a peer is measured before anything that recurses
 * (JSON.stringify, structuredClone, schema validators) or walks it item by item sees it.
 */
export function jsonBoundBroken(value: unknown, bounds: JsonBounds): 'depth' | 'values' | null {
  const stack: unknown[] = [value];
  const depths: number[] = [0];
  let values = 0;
  while (stack.length > 0) {
    const v = stack.pop();
    const depth = depths.pop()!;
    if (++values > bounds.maxValues) return 'values';
    if (v === null || typeof v !== 'object') continue;
    if (depth + 1 > bounds.maxDepth) return 'depth';
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        stack.push(v[i]);
        depths.push(depth + 1);
      }
    } else {
      for (const key in v) {
        stack.push((v as Record<string, unknown>)[key]);
        depths.push(depth + 1);
      }
    }
    if (stack.length > bounds.maxValues) return 'values';
  }
  return null;
}

/**
 * JSON.parse for text from a peer (a model provider, a hook, a search backend, a fetched page):
 * text nested deeper than `max` is refused before it is parsed, so nothing that later walks the
 * value by recursion (a digest, a clone, the store, a schema check) can overflow the stack.
 */
export function parsePeerJson(text: string, max: number = MAX_JSON_DEPTH): unknown {
  if (textNestedDeeperThan(text, max)) throw new SyntaxError(`the JSON nests deeper than ${max} levels`);
  return JSON.parse(text);
}
