// The global output cap (SPEC §7, §9.11): every text block of every tool result passes it.
// Truncation is structured metadata computed here — never a text marker that a tool's own
// output could fake, and never inferred from text afterwards. A capped block's full text is
// streamed to a spill file while it is produced, so memory holds at most the head.
import type { SpillSink } from '../store/outputs.js';
import { createHash, type Hash } from 'node:crypto';
import type { ResultBlock, Truncation } from '../contract/schemas.js';

export const DEFAULT_OUTPUT_CAP_CHARS = 30_000;

export interface CappedContent {
  content: ResultBlock[];
  truncations: Truncation[];
}

/** Where the full text of a capped block goes (a spill file). */
export type { SpillSink };

/** Opens a spill for the block at `blockIndex` of the returned content; null: no spill storage. */
export type OpenSpill = ((blockIndex: number) => Promise<SpillSink>) | null;

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;

/** Counts Unicode code points, and finds the UTF-16 index where the first `limit` of them end. */
export function codePointCut(text: string, limit: number): { total: number; cutIndex: number } {
  let count = 0;
  let cutIndex = limit <= 0 ? 0 : text.length;
  for (let i = 0; i < text.length; i++) {
    if (isHigh(text.charCodeAt(i)) && i + 1 < text.length && isLow(text.charCodeAt(i + 1))) i++;
    count++;
    if (count === limit) cutIndex = i + 1;
  }
  return { total: count, cutIndex: count > limit ? cutIndex : text.length };
}

export function capNote(shown: number, total: number, outputId: string | undefined): string {
  return outputId
    ? `[output capped: showing the first ${shown} of ${total} characters; the full output is ${outputId}]`
    : `[output capped: showing the first ${shown} of ${total} characters]`;
}

/**
 * Collects one text block that may arrive in chunks. Keeps the first `cap` code points in
 * memory; once the text grows past the cap, everything (head included) is streamed to a
 * spill. Digest, byte and character counts are computed on the way, so nothing re-reads.
 */
export class CappedTextCollector {
  private head = '';
  private headChars = 0;
  private total = 0;
  private bytes = 0;
  private readonly hash: Hash = createHash('sha256');
  private spill: SpillSink | null = null;
  /** A high surrogate that ended the previous chunk: held until its pair arrives. */
  private pendingHigh = '';
  /** Each chunk is encoded once into this reused buffer, for the digest and the spill alike. */
  private scratch = Buffer.allocUnsafe(64 * 1024);

  constructor(
    private readonly cap: number,
    private readonly blockIndex: number,
    private readonly openSpill: OpenSpill,
  ) {}

  async write(chunk: string): Promise<void> {
    let text = this.pendingHigh + chunk;
    this.pendingHigh = '';
    if (text.length > 0 && isHigh(text.charCodeAt(text.length - 1))) {
      this.pendingHigh = text.slice(-1);
      text = text.slice(0, -1);
    }
    await this.consume(text);
  }

  private async consume(text: string): Promise<void> {
    if (text.length === 0) return;
    const { total, cutIndex } = codePointCut(text, this.cap - this.headChars);
    this.total += total;
    const encoded = this.encode(text);
    this.bytes += encoded.length;
    this.hash.update(encoded);
    if (this.spill) {
      await this.spill.write(encoded);
      return;
    }
    if (this.total <= this.cap) {
      this.head += text;
      this.headChars += total;
      return;
    }
    // Crossing the cap: the spill starts with everything so far.
    const before = this.head;
    this.head += text.slice(0, cutIndex);
    this.headChars = this.cap;
    if (this.openSpill) {
      this.spill = await this.openSpill(this.blockIndex);
      await this.spill.write(Buffer.from(before, 'utf8'));
      await this.spill.write(this.encode(text));
    }
  }

  private encode(text: string): Buffer {
    const max = text.length * 3; // UTF-8 never needs more than 3 bytes per UTF-16 unit
    if (this.scratch.length < max) this.scratch = Buffer.allocUnsafe(Math.max(max, this.scratch.length * 2));
    return this.scratch.subarray(0, this.scratch.write(text, 0, 'utf8'));
  }

  async finish(): Promise<{ text: string; truncation: Truncation | null; note: string | null }> {
    // A lone high surrogate at the very end stays part of the text, as a whole-string write would have it.
    const lone = this.pendingHigh;
    this.pendingHigh = '';
    await this.consume(lone);
    if (this.total <= this.cap) return { text: this.head, truncation: null, note: null };
    const sha256 = this.hash.digest('hex');
    let outputId: string | undefined;
    if (this.spill) outputId = await this.spill.commit({ chars: this.total, bytes: this.bytes, sha256 });
    const truncation: Truncation = {
      ...(outputId ? { output_id: outputId } : {}),
      block_index: this.blockIndex,
      total_chars: this.total,
      shown_chars: this.cap,
      sha256,
    };
    return { text: this.head, truncation, note: capNote(this.cap, this.total, outputId) };
  }

  /** Discards the spill (the call was cancelled or failed before its result was recorded). */
  async abort(): Promise<void> {
    await this.spill?.abort();
    this.spill = null;
  }
}

/**
 * Caps each text block to `capChars` code points. A capped block keeps its head; a short
 * note block follows it for the model; the structured `Truncation` is what clients trust.
 */
export async function capContent(
  content: readonly ResultBlock[],
  capChars: number,
  openSpill: OpenSpill = null,
  /** Blocks the tool already capped while streaming (by index): kept as they are. */
  precapped: ReadonlyMap<number, Truncation> = new Map(),
): Promise<CappedContent> {
  const out: ResultBlock[] = [];
  const truncations: Truncation[] = [];
  for (const [index, block] of content.entries()) {
    const pre = precapped.get(index);
    if (pre) {
      truncations.push({ ...pre, block_index: out.length });
      out.push(block);
      continue;
    }
    if (block.type !== 'text') {
      out.push(block);
      continue;
    }
    // Fast path: a block with no more UTF-16 units than the cap cannot exceed it in code points.
    if (block.text.length <= capChars || codePointCut(block.text, capChars).total <= capChars) {
      out.push(block);
      continue;
    }
    // block_index points into the returned content, where the head now stands.
    const collector = new CappedTextCollector(capChars, out.length, openSpill);
    await collector.write(block.text);
    const done = await collector.finish();
    out.push({ type: 'text', text: done.text });
    truncations.push(done.truncation!);
    out.push({ type: 'text', text: done.note! });
  }
  return { content: out, truncations };
}
