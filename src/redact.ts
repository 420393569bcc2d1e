// Secrets out of text that leaves the server (errors, events, exports, logs). Applied to the raw
// text before anything cuts or encodes it: a message shortened first keeps most of a key and
// loses the part an exact match would have needed. A run of RUN (12) or more characters copied from a
// secret counts as the secret, so an echo of 42 of a key's 46 characters is caught too.
//
// A peer may echo a secret encoded rather than as sent: base64 (standard or URL-safe, padded or
// not, and inside a longer base64 text, where the secret's bytes start at any of the three byte
// offsets of a 3-byte group), percent-encoded, hex (lower or upper case), or JSON-escaped (once or
// twice, `\/` and `\uXXXX` forms too). A Redactor computes every such form of each secret once;
// a run of any form long enough to carry RUN of the secret's characters counts as the secret. The
// text is also read with the separators a peer may split a secret with taken out (whitespace, line
// breaks written as `\n`, quotes closing and reopening a string, `"…" + "…"`), so a key cut into
// quoted pieces, or base64 wrapped into lines, is caught as a whole.
//
// Secrets shorter than MIN_ENCODED (8) characters are redacted as written only: their encodings
// are a few hex digits or base64 letters, which ordinary text (ids, digests, encoded data) holds
// by chance, so redacting them would cut unrelated text; and a secret that short is no secret a
// provider or hook could be trusted with anyway (the server refuses tokens under 16).

/** The shortest run of a secret's characters that is redacted. */
export const RUN = 12;
/** Secrets at least this long are redacted in their encoded forms too. */
export const MIN_ENCODED = 8;
/** Secrets shorter than this are not redacted at all (`abc` would redact every word that has it). */
const MIN_SECRET = 4;
export const REDACTED = '[redacted]';

/** Every form is indexed by its runs of SEED characters; a hit is then extended to its full length. */
const SEED = RUN;

/** One written form of a secret, and the shortest run of it that counts (its length: only whole). */
interface Form {
  text: string;
  run: number;
}

const b64 = (bytes: Buffer) => bytes.toString('base64');
const b64url = (s: string) => s.replace(/\+/g, '-').replace(/\//g, '_');
const unpadded = (s: string) => s.replace(/=+$/, '');
const hexEscapes = (s: string, upper: boolean) => s.replace(/%[0-9A-Fa-f]{2}/g, (m) => (upper ? m.toUpperCase() : m.toLowerCase()));

/** The characters of the base64 text of `bytes`, starting `offset` bytes into a 3-byte group, that depend on `bytes` alone. */
function base64Core(bytes: Buffer, offset: number): string {
  const text = unpadded(b64(Buffer.concat([Buffer.alloc(offset), bytes])));
  // Character j carries bits [6j, 6j+6): it is the secret's alone from bit 8·offset to bit 8·(offset+n).
  return text.slice(Math.ceil((8 * offset) / 6), Math.floor((8 * (offset + bytes.length)) / 6));
}

/** The forms a secret is redacted in, each with the run of it that counts. */
export function formsOf(secret: string): Form[] {
  const n = secret.length;
  const partial = n >= RUN;
  const forms = new Map<string, number>();
  // `scale`: how many characters of the form carry one character of the secret.
  const add = (text: string, scale: number) => {
    if (text.length === 0) return;
    const run = partial ? Math.min(text.length, Math.ceil(RUN * scale)) : text.length;
    const had = forms.get(text);
    if (had === undefined || run < had) forms.set(text, run);
  };
  add(secret, 1);
  if (n >= MIN_ENCODED) {
    const bytes = Buffer.from(secret, 'utf8');
    const perChar = bytes.length / n;
    for (const padded of [b64(bytes), unpadded(b64(bytes))]) {
      add(padded, (4 / 3) * perChar);
      add(b64url(padded), (4 / 3) * perChar);
    }
    for (const offset of [0, 1, 2]) {
      const core = base64Core(bytes, offset);
      add(core, (4 / 3) * perChar);
      add(b64url(core), (4 / 3) * perChar);
    }
    const hex = bytes.toString('hex');
    add(hex, 2 * perChar);
    add(hex.toUpperCase(), 2 * perChar);
    const component = encodeURIComponent(secret);
    add(hexEscapes(component, true), component.length / n);
    add(hexEscapes(component, false), component.length / n);
    const everyByte = hex.replace(/(..)/g, '%$1');
    add(everyByte, 3 * perChar);
    add(everyByte.toUpperCase(), 3 * perChar);
    const json = JSON.stringify(secret).slice(1, -1);
    add(json, json.length / n);
    add(json.replace(/\//g, '\\/'), json.replace(/\//g, '\\/').length / n);
    const twice = JSON.stringify(json).slice(1, -1);
    add(twice, twice.length / n);
    const unicode = [...secret].map((c) => (c.codePointAt(0)! > 0xffff ? JSON.stringify(c).slice(1, -1) : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)).join('');
    add(unicode, unicode.length / n);
    add(unicode.replace(/\\u([0-9a-f]{4})/g, (_m, h: string) => `\\u${h.toUpperCase()}`), unicode.length / n);
  }
  return [...forms].map(([text, run]) => ({ text, run }));
}

/**
 * What a peer may put between the pieces of a secret it split: whitespace, an escaped line break
 * (`\n` as two characters, as in JSON), and a string closed and reopened (`"ab" "cd"`, `'ab' + 'cd'`,
 * `\"ab\" \"cd\"`).
 */
const SEPARATORS = /\\?["'`](?:\s|\\[nrt])*\+?(?:\s|\\[nrt])*\\?["'`]|\\[nrt]|\s+/g;

/** A set of secrets with all their forms worked out once; redacts any number of texts. */
export class Redactor {
  static readonly NONE = new Redactor([]);

  /** The secrets, distinct, in the order given. */
  readonly secrets: readonly string[];
  private readonly forms: Form[] = [];
  /** SEED characters of a form → where they occur: [form index, offset] pairs. */
  private readonly seeds = new Map<string, number[]>();
  /** Forms shorter than SEED: found by indexOf, whole. */
  private readonly short: string[] = [];

  constructor(secrets: Iterable<string | undefined | null>) {
    const distinct = new Set<string>();
    for (const s of secrets) if (typeof s === 'string' && s.length >= MIN_SECRET) distinct.add(s);
    this.secrets = [...distinct];
    for (const secret of this.secrets) {
      for (const form of formsOf(secret)) {
        if (form.run < SEED) {
          this.short.push(form.text);
          continue;
        }
        const index = this.forms.push(form) - 1;
        for (let off = 0; off + SEED <= form.text.length; off++) {
          const key = form.text.slice(off, off + SEED);
          const at = this.seeds.get(key);
          if (at) at.push(index, off);
          else this.seeds.set(key, [index, off]);
        }
      }
    }
  }

  /** No secret to redact: every text is returned as it is. */
  get empty(): boolean {
    return this.secrets.length === 0;
  }

  /** This redactor's secrets and `more`. */
  with(more: Iterable<string | undefined | null>): Redactor {
    const added = [...more].filter((s): s is string => typeof s === 'string' && s.length >= MIN_SECRET && !this.secrets.includes(s));
    return added.length === 0 ? this : new Redactor([...this.secrets, ...added]);
  }

  /** `text` with every form of every secret, and every long enough run of one, replaced by [redacted]. */
  redact(text: string): string {
    if (this.empty || text.length === 0) return text;
    const marked = new Uint8Array(text.length);
    let any = this.mark(text, marked, null);
    // The same text with the separators a secret may be split by taken out.
    SEPARATORS.lastIndex = 0;
    if (SEPARATORS.test(text)) {
      const at: number[] = [];
      let view = '';
      let from = 0;
      SEPARATORS.lastIndex = 0;
      for (let m = SEPARATORS.exec(text); m !== null; m = SEPARATORS.exec(text)) {
        for (let i = from; i < m.index; i++) at.push(i);
        view += text.slice(from, m.index);
        from = m.index + m[0].length;
      }
      for (let i = from; i < text.length; i++) at.push(i);
      view += text.slice(from);
      any = this.mark(view, marked, at) || any;
    }
    if (!any) return text;
    let out = '';
    for (let i = 0; i < text.length; ) {
      if (marked[i] === 1) {
        out += REDACTED;
        while (i < text.length && marked[i] === 1) i++;
      } else {
        const start = i;
        while (i < text.length && marked[i] !== 1) i++;
        out += text.slice(start, i);
      }
    }
    return out;
  }

  /** A copy of a JSON-like value with every string in it redacted (keys stay). */
  redactDeep<T>(value: T, depth = 0): T {
    if (typeof value === 'string') return this.redact(value) as T;
    if (this.empty || value === null || typeof value !== 'object' || depth > 64) return value;
    if (Array.isArray(value)) return value.map((v: unknown) => this.redactDeep(v, depth + 1)) as T;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = this.redactDeep(v, depth + 1);
    return out as T;
  }

  /**
   * Marks in `marked` what of `text` is a secret; `at` maps a position of `text` to the original
   * text's (null: `text` is the original). Marks from the first to the last character of a hit.
   */
  private mark(text: string, marked: Uint8Array, at: number[] | null): boolean {
    let any = false;
    const fill = (start: number, end: number) => {
      if (at === null) marked.fill(1, start, end);
      else marked.fill(1, at[start]!, at[end - 1]! + 1);
      any = true;
    };
    for (const s of this.short) {
      for (let i = text.indexOf(s); i !== -1; i = text.indexOf(s, i + 1)) fill(i, i + s.length);
    }
    if (this.seeds.size === 0) return any;
    for (let i = 0; i + SEED <= text.length; i++) {
      const hits = this.seeds.get(text.slice(i, i + SEED));
      if (!hits) continue;
      for (let h = 0; h < hits.length; h += 2) {
        const form = this.forms[hits[h]!]!;
        const off = hits[h + 1]!;
        let k = SEED;
        while (i + k < text.length && off + k < form.text.length && text.charCodeAt(i + k) === form.text.charCodeAt(off + k)) k++;
        if (k >= form.run) fill(i, i + k);
      }
    }
    return any;
  }
}

/** Redactors made by redactSecrets, by their secrets: the forms are worked out once per set. */
const recent = new Map<string, Redactor>();
const RECENT_MAX = 64;

/** Replaces every secret, and every run of ≥ RUN characters taken from one, in any of its forms, with [redacted]. */
export function redactSecrets(text: string, secrets: readonly (string | undefined | null)[]): string {
  const keys = secrets.filter((s): s is string => typeof s === 'string' && s.length >= MIN_SECRET);
  if (keys.length === 0 || text.length === 0) return text;
  const id = keys.join('\u0000');
  let r = recent.get(id);
  if (!r) {
    if (recent.size >= RECENT_MAX) recent.delete(recent.keys().next().value!);
    recent.set(id, (r = new Redactor(keys)));
  }
  return r.redact(text);
}
