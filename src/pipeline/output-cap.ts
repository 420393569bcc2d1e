// The global output cap (SPEC §7, §9.11): every text block of every tool result passes it.
// Truncation is structured metadata computed here — never a text marker that a tool's own
// output could fake, and never inferred from text afterwards.
import { createHash } from 'node:crypto';
import type { TextBlock, Truncation } from '../contract/schemas.js';

export const DEFAULT_OUTPUT_CAP_CHARS = 30_000;

export interface CappedContent {
  content: TextBlock[];
  truncations: Truncation[];
}

/** Counts Unicode code points, and finds the UTF-16 index where the first `limit` of them end. */
export function codePointCut(text: string, limit: number): { total: number; cutIndex: number } {
  let count = 0;
  let cutIndex = limit <= 0 ? 0 : text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
    if (count === limit) cutIndex = i + 1;
  }
  return { total: count, cutIndex: count > limit ? cutIndex : text.length };
}

/**
 * Caps each text block to `capChars` code points. A capped block keeps its head; a short
 * note block follows it for the model; the structured `Truncation` is what clients trust.
 */
export function capContent(content: readonly TextBlock[], capChars: number): CappedContent {
  const out: TextBlock[] = [];
  const truncations: Truncation[] = [];
  content.forEach((block) => {
    // Fast path: a block with no more UTF-16 units than the cap cannot exceed it in code points.
    if (block.text.length <= capChars) {
      out.push(block);
      return;
    }
    const { total, cutIndex } = codePointCut(block.text, capChars);
    if (total <= capChars) {
      out.push(block);
      return;
    }
    const sha256 = createHash('sha256').update(block.text, 'utf8').digest('hex');
    // block_index points into the returned content, where the head now stands.
    truncations.push({ block_index: out.length, total_chars: total, shown_chars: capChars, sha256 });
    out.push({ type: 'text', text: block.text.slice(0, cutIndex) });
    out.push({
      type: 'text',
      text: `[output capped: showing the first ${capChars} of ${total} characters]`,
    });
  });
  return { content: out, truncations };
}
