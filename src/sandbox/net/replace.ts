// Finding and replacing fixed byte strings in a stream whose chunks may split them: each chunk is
// searched together with the tail of the one before (one byte shorter than the longest pattern),
// and that tail is held back until the next chunk or the end. Used both ways: a request's
// placeholders become values (or refuse the request), a response's values become placeholders.
import { Transform, type TransformCallback } from 'node:stream';

export interface Pattern {
  find: Buffer;
  /** What it becomes; null: finding it is an error (`refuse` says why). */
  replace: Buffer | null;
  refuse?: string;
}

export class PatternRefusal extends Error {}

/** Replaces every pattern in `buf` (leftmost first; at one place, the longest); throws a PatternRefusal on a refused one. */
export function replaceAll(buf: Buffer, patterns: readonly Pattern[], found?: (p: Pattern) => void): Buffer {
  if (patterns.length === 0) return buf;
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    let best: { index: number; p: Pattern } | null = null;
    for (const p of patterns) {
      const i = buf.indexOf(p.find, at);
      if (i !== -1 && (!best || i < best.index || (i === best.index && p.find.length > best.p.find.length))) best = { index: i, p };
    }
    if (!best) break;
    if (best.p.replace === null) throw new PatternRefusal(best.p.refuse ?? 'a refused pattern');
    found?.(best.p);
    parts.push(buf.subarray(at, best.index), best.p.replace);
    at = best.index + best.p.find.length;
  }
  if (parts.length === 0) return buf;
  parts.push(buf.subarray(at));
  return Buffer.concat(parts);
}

/** A stream through which every pattern is replaced (or refused: the stream errors with a PatternRefusal). */
export class ReplacingStream extends Transform {
  private tail = Buffer.alloc(0);
  private readonly keep: number;

  constructor(
    private readonly patterns: readonly Pattern[],
    private readonly found?: (p: Pattern) => void,
  ) {
    super();
    this.keep = Math.max(0, ...patterns.map((p) => p.find.length)) - 1;
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    const buf = this.tail.length > 0 ? Buffer.concat([this.tail, chunk]) : chunk;
    // Everything but the last `keep` bytes can be decided now, unless a pattern starts there.
    let cut = Math.max(0, buf.length - this.keep);
    for (const p of this.patterns) {
      const from = Math.max(0, cut - p.find.length + 1);
      const i = buf.indexOf(p.find, from);
      if (i !== -1 && i < cut && i + p.find.length > cut) cut = i;
    }
    try {
      const out = replaceAll(buf.subarray(0, cut), this.patterns, this.found);
      this.tail = Buffer.from(buf.subarray(cut));
      cb(null, out);
    } catch (err) {
      cb(err as Error);
    }
  }

  override _flush(cb: TransformCallback): void {
    try {
      cb(null, replaceAll(this.tail, this.patterns, this.found));
    } catch (err) {
      cb(err as Error);
    }
  }
}
