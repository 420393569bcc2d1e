// Canonical JSON (RFC 8785, JCS) for what the evidence chain hashes and signs: object members
// sorted by their names' UTF-16 code units, no whitespace, strings and numbers written as
// ECMAScript's JSON.stringify writes them (which is what RFC 8785 specifies), members whose value
// is undefined left out as JSON leaves them out. Every JSON value has exactly one encoding, so a
// document read back from the store (or from an export file) hashes as it did when it was made.

/**
 * The RFC 8785 encoding of a JSON value; throws on what JSON cannot hold (a non-finite number, a
 * cycle, a bigint). `without`: a member of the top-level object left out (a record's own `hash`),
 * as if it were not there, without copying the record.
 */
export function canonicalJson(value: unknown, without?: string): string {
  return write(value, 0, [], without);
}

/** Deeper than this is refused rather than recursed into (a document from outside: an export file). */
export const CANONICAL_MAX_DEPTH = 1000;

/** Characters a JSON string must escape (and lone surrogates, which JSON.stringify writes as \u escapes). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

function str(s: string): string {
  // Most strings need no escape: quoting them directly is what JSON.stringify would write.
  return NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : `"${s}"`;
}

// Strings are built by concatenation (V8 ropes): far cheaper than an array of pieces for the
// many small values of a large record.
function write(value: unknown, depth: number, open: object[], without?: string): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return str(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`canonical JSON has no encoding for ${value}`);
      return JSON.stringify(value); // -0 is written 0, as RFC 8785 says
    case 'object':
      break;
    default:
      throw new TypeError(`canonical JSON has no encoding for a ${typeof value}`);
  }
  const obj = value as object;
  if (depth >= CANONICAL_MAX_DEPTH) throw new TypeError(`canonical JSON: nested deeper than ${CANONICAL_MAX_DEPTH} levels`);
  if (open.includes(obj)) throw new TypeError('canonical JSON has no encoding for a cycle');
  open.push(obj);
  let out: string;
  if (Array.isArray(obj)) {
    out = '[';
    for (let i = 0; i < obj.length; i++) {
      const v: unknown = obj[i];
      // As JSON.stringify: an undefined (or function) array element is null.
      out += (i > 0 ? ',' : '') + (v === undefined || typeof v === 'function' ? 'null' : write(v, depth + 1, open));
    }
    out += ']';
  } else {
    const asJson = (obj as { toJSON?: unknown }).toJSON;
    if (typeof asJson === 'function') {
      open.pop();
      return write((asJson as () => unknown).call(obj), depth, open);
    }
    // Default sort compares UTF-16 code units, which is the order RFC 8785 §3.2.3 asks for.
    const keys = Object.keys(obj).sort();
    out = '{';
    let first = true;
    for (const k of keys) {
      const v = (obj as Record<string, unknown>)[k];
      if (v === undefined || typeof v === 'function' || k === without) continue;
      out += (first ? '' : ',') + str(k) + ':' + write(v, depth + 1, open);
      first = false;
    }
    out += '}';
  }
  open.pop();
  return out;
}
