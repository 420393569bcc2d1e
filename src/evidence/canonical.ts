// Canonical JSON (RFC 8785, JCS) for what the evidence chain hashes and signs: object members
// sorted by their names' UTF-16 code units, no whitespace, strings and numbers written as
// ECMAScript's JSON.stringify writes them (which is what RFC 8785 specifies), members whose value
// is undefined left out as JSON leaves them out. Every JSON value has exactly one encoding, so a
// document read back from the store (or from an export file) hashes as it did when it was made.

/** The RFC 8785 encoding of a JSON value; throws on what JSON cannot hold (a non-finite number, a cycle, a bigint). */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  write(value, out, new Set());
  return out.join('');
}

/** Deeper than this is refused rather than recursed into (a document from outside: an export file). */
export const CANONICAL_MAX_DEPTH = 1000;

function write(value: unknown, out: string[], open: Set<object>): void {
  if (value === null) {
    out.push('null');
    return;
  }
  switch (typeof value) {
    case 'string':
      out.push(JSON.stringify(value));
      return;
    case 'boolean':
      out.push(value ? 'true' : 'false');
      return;
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`canonical JSON has no encoding for ${value}`);
      out.push(JSON.stringify(value)); // -0 is written 0, as RFC 8785 says
      return;
    case 'object':
      break;
    default:
      throw new TypeError(`canonical JSON has no encoding for a ${typeof value}`);
  }
  const obj = value as object;
  if (open.has(obj)) throw new TypeError('canonical JSON has no encoding for a cycle');
  if (open.size >= CANONICAL_MAX_DEPTH) throw new TypeError(`canonical JSON: nested deeper than ${CANONICAL_MAX_DEPTH} levels`);
  open.add(obj);
  if (Array.isArray(obj)) {
    out.push('[');
    for (let i = 0; i < obj.length; i++) {
      if (i > 0) out.push(',');
      const v: unknown = obj[i];
      // As JSON.stringify: an undefined (or function) array element is null.
      if (v === undefined || typeof v === 'function') out.push('null');
      else write(v, out, open);
    }
    out.push(']');
  } else {
    const asJson = (obj as { toJSON?: unknown }).toJSON;
    if (typeof asJson === 'function') {
      open.delete(obj);
      write((asJson as () => unknown).call(obj), out, open);
      return;
    }
    // Default sort compares UTF-16 code units, which is the order RFC 8785 §3.2.3 asks for.
    const keys = Object.keys(obj).sort();
    out.push('{');
    let first = true;
    for (const k of keys) {
      const v = (obj as Record<string, unknown>)[k];
      if (v === undefined || typeof v === 'function') continue;
      if (!first) out.push(',');
      first = false;
      out.push(JSON.stringify(k), ':');
      write(v, out, open);
    }
    out.push('}');
  }
  open.delete(obj);
}
