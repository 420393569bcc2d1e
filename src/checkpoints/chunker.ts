// Content-defined chunking (a gear hash with normalized chunking, after FastCDC): a file is cut
// where its content says, not at fixed offsets, so an edit that inserts or removes bytes changes
// the chunks around it only, and every other chunk of the file is stored once whatever its
// offset. Cut points: never before MIN bytes, preferably near AVG (a stricter mask before it, a
// looser one after), always by MAX.
import { createHash } from 'node:crypto';

export const MIN_CHUNK = 1024;
export const AVG_CHUNK = 4 * 1024;
export const MAX_CHUNK = 32 * 1024;

/** 256 fixed pseudo-random 32-bit words (a split-mix sequence from a constant seed): the same cuts on every server. */
const GEAR: Uint32Array = (() => {
  const t = new Uint32Array(256);
  let x = 0x9e3779b9;
  for (let i = 0; i < 256; i++) {
    x = (x + 0x6d2b79f5) >>> 0;
    let z = x;
    z = Math.imul(z ^ (z >>> 15), z | 1) >>> 0;
    z = (z ^ (z + Math.imul(z ^ (z >>> 7), z | 61))) >>> 0;
    t[i] = (z ^ (z >>> 14)) >>> 0;
  }
  return t;
})();

// The hash's high bits depend on the last 32 bytes. 14 of them must be zero for a cut before the
// average size (fewer cuts), 10 after (more): sizes cluster near AVG.
const MASK_STRICT = 0xfffc0000 >>> 0;
const MASK_LOOSE = 0xffc00000 >>> 0;

/** Where the next chunk of `buf` starting at `start` ends (exclusive). */
export function nextCut(buf: Uint8Array, start: number): number {
  const n = buf.length - start;
  if (n <= MIN_CHUNK) return buf.length;
  const end = start + Math.min(n, MAX_CHUNK);
  const normal = start + Math.min(n, AVG_CHUNK);
  let h = 0;
  let i = start + MIN_CHUNK;
  for (; i < normal; i++) {
    h = ((h << 1) + GEAR[buf[i]!]!) >>> 0;
    if ((h & MASK_STRICT) === 0) return i + 1;
  }
  for (; i < end; i++) {
    h = ((h << 1) + GEAR[buf[i]!]!) >>> 0;
    if ((h & MASK_LOOSE) === 0) return i + 1;
  }
  return end;
}

export interface Chunk {
  /** SHA-256 of the chunk's bytes, hex. */
  sha256: string;
  offset: number;
  length: number;
}

/** The chunks of `buf`, in order; an empty buffer has none. */
export function chunks(buf: Uint8Array): Chunk[] {
  const out: Chunk[] = [];
  for (let start = 0; start < buf.length; ) {
    const end = nextCut(buf, start);
    out.push({ sha256: createHash('sha256').update(buf.subarray(start, end)).digest('hex'), offset: start, length: end - start });
    start = end;
  }
  return out;
}
