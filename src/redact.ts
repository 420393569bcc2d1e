// Secrets out of text that leaves the server (errors, events, exports, logs). Applied to the raw
// text before anything cuts or encodes it: a message shortened first keeps most of a key and
// loses the part an exact match would have needed. A run of RUN (12) or more characters copied from a
// secret counts as the secret, so an echo of 42 of a key's 46 characters is caught too.

/** The shortest run of a secret's characters that is redacted. */
export const RUN = 12;
export const REDACTED = '[redacted]';

/** Replaces every secret, and every run of ≥ RUN characters taken from one, with [redacted]. */
export function redactSecrets(text: string, secrets: readonly (string | undefined | null)[]): string {
  const keys = secrets.filter((s): s is string => typeof s === 'string' && s.length >= 4);
  if (keys.length === 0 || text.length === 0) return text;
  const marked = new Uint8Array(text.length);
  let any = false;
  for (const key of keys) {
    // Exact occurrences first (secrets shorter than a run are only matched whole).
    for (let at = text.indexOf(key); at !== -1; at = text.indexOf(key, at + 1)) {
      marked.fill(1, at, at + key.length);
      any = true;
    }
    if (key.length < RUN) continue;
    const grams = new Set<string>();
    for (let i = 0; i + RUN <= key.length; i++) grams.add(key.slice(i, i + RUN));
    for (let i = 0; i + RUN <= text.length; i++) {
      if (grams.has(text.slice(i, i + RUN))) {
        marked.fill(1, i, i + RUN);
        any = true;
      }
    }
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
