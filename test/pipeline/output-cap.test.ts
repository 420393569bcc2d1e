import { describe, it, expect } from 'vitest';
import { createHash } from 'node:crypto';
import { capContent, CappedTextCollector, codePointCut, DEFAULT_OUTPUT_CAP_CHARS } from '../../src/pipeline/output-cap.js';
import type { TextBlock } from '../../src/contract/schemas.js';

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
const text = (t: string): TextBlock => ({ type: 'text', text: t });
const note = (shown: number, total: number) => `[output capped: showing the first ${shown} of ${total} characters]`;
const SMILE = '😀'; // U+1F600: one code point, two UTF-16 units
const THUMB_TONE = '👍🏽'; // two code points (emoji + skin-tone modifier), four UTF-16 units
const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;

describe('codePointCut', () => {
  const cases: { name: string; text: string; limit: number; total: number; cutIndex: number }[] = [
    { name: 'empty', text: '', limit: 5, total: 0, cutIndex: 0 },
    { name: 'under the limit', text: 'abc', limit: 5, total: 3, cutIndex: 3 },
    { name: 'at the limit', text: 'abc', limit: 3, total: 3, cutIndex: 3 },
    { name: 'one over', text: 'abcd', limit: 3, total: 4, cutIndex: 3 },
    { name: 'far over', text: 'x'.repeat(1000), limit: 10, total: 1000, cutIndex: 10 },
    { name: 'limit 1', text: 'ab', limit: 1, total: 2, cutIndex: 1 },
    { name: 'surrogate pairs count as one', text: SMILE.repeat(3), limit: 5, total: 3, cutIndex: 6 },
    { name: 'surrogate pairs at the limit', text: SMILE.repeat(3), limit: 3, total: 3, cutIndex: 6 },
    { name: 'cut after a whole pair', text: SMILE.repeat(3), limit: 2, total: 3, cutIndex: 4 },
    { name: 'cut after a pair in mixed text', text: `a${SMILE}b`, limit: 2, total: 3, cutIndex: 3 },
    { name: 'cut before a pair', text: `a${SMILE}b`, limit: 1, total: 3, cutIndex: 1 },
    { name: 'single emoji, limit 1', text: SMILE, limit: 1, total: 1, cutIndex: 2 },
    { name: 'emoji with modifier is two code points', text: THUMB_TONE, limit: 1, total: 2, cutIndex: 2 },
    { name: 'lone high surrogate at the end counts as one', text: 'ab\ud83d', limit: 2, total: 3, cutIndex: 2 },
    { name: 'lone low surrogate counts as one', text: '\ude00xy', limit: 1, total: 3, cutIndex: 1 },
    { name: 'high surrogate followed by a non-surrogate', text: '\ud83dxy', limit: 2, total: 3, cutIndex: 2 },
    { name: 'CJK (BMP) characters are one unit each', text: '日本語テキスト', limit: 3, total: 7, cutIndex: 3 },
  ];
  it.each(cases)('$name', async ({ text: t, limit, total, cutIndex }) => {
    expect(codePointCut(t, limit)).toEqual({ total, cutIndex });
  });

  it('never splits a surrogate pair and always keeps exactly `limit` code points (deterministic sweep)', async () => {
    const alphabet = ['a', 'Z', ' ', '\n', 'é', '日', SMILE, '𝄞', '🏽', '👍'];
    let seed = 12345;
    const next = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed;
    };
    for (let n = 0; n < 200; n++) {
      let s = '';
      const len = next() % 40;
      for (let i = 0; i < len; i++) s += alphabet[next() % alphabet.length]!;
      const points = [...s].length;
      for (let limit = 1; limit <= points + 1; limit++) {
        const { total, cutIndex } = codePointCut(s, limit);
        expect(total).toBe(points);
        if (points <= limit) {
          expect(cutIndex).toBe(s.length);
        } else {
          expect([...s.slice(0, cutIndex)].length).toBe(limit);
          const before = s.charCodeAt(cutIndex - 1);
          const after = s.charCodeAt(cutIndex);
          expect(isHigh(before) && isLow(after)).toBe(false);
        }
      }
    }
  });
});

describe('capContent: single block', () => {
  it('uses 30,000 characters as the default cap', async () => {
    expect(DEFAULT_OUTPUT_CAP_CHARS).toBe(30_000);
  });

  it.each([
    { name: 'empty text', t: '', cap: 10 },
    { name: 'under the cap', t: 'hello', cap: 10 },
    { name: 'exactly at the cap', t: 'x'.repeat(10), cap: 10 },
    { name: 'emoji at the cap in code points but over it in UTF-16 units', t: SMILE.repeat(10), cap: 10 },
    { name: 'default cap, exactly 30000', t: 'y'.repeat(30_000), cap: DEFAULT_OUTPUT_CAP_CHARS },
  ])('$name: the block is passed through unchanged', async ({ t, cap }) => {
    const block = text(t);
    const r = await capContent([block], cap);
    expect(r.truncations).toEqual([]);
    expect(r.content).toHaveLength(1);
    expect(r.content[0]).toBe(block);
    expect((r.content[0] as { text: string }).text).toBe(t);
  });

  it.each([
    { name: 'one over the cap', t: 'x'.repeat(11), cap: 10, head: 'x'.repeat(10), total: 11 },
    { name: 'far over the cap', t: 'abcdefghij'.repeat(100), cap: 25, head: 'abcdefghij'.repeat(2) + 'abcde', total: 1000 },
    { name: 'default cap, one over', t: 'z'.repeat(30_001), cap: DEFAULT_OUTPUT_CAP_CHARS, head: 'z'.repeat(30_000), total: 30_001 },
    { name: 'emoji never split, counted as one char', t: SMILE.repeat(11), cap: 10, head: SMILE.repeat(10), total: 11 },
    { name: 'emoji right at the cut', t: `abc${SMILE}def`, cap: 4, head: `abc${SMILE}`, total: 7 },
    { name: 'emoji right after the cut', t: `abcd${SMILE}ef`, cap: 4, head: 'abcd', total: 7 },
    { name: 'mixed multilingual text', t: `héllo ${SMILE} 日本 𝄞 end`, cap: 9, head: `héllo ${SMILE} 日`, total: 16 },
  ])('$name: head, note block and structured metadata', async ({ t, cap, head, total }) => {
    const r = await capContent([text(t)], cap);
    expect(r.content).toEqual([text(head), text(note(cap, total))]);
    expect(r.truncations).toEqual([{ block_index: 0, total_chars: total, shown_chars: cap, sha256: sha256(t) }]);
    expect([...(r.content[0] as { text: string }).text].length).toBe(cap);
    expect(t.startsWith((r.content[0] as { text: string }).text)).toBe(true);
    expect('output_id' in r.truncations[0]!).toBe(false);
  });

  it('sha256 is the digest of the whole UTF-8 text, not of the head', async () => {
    const t = `${SMILE}é`.repeat(50);
    const r = await capContent([text(t)], 10);
    const tr = r.truncations[0]!;
    expect(tr.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(tr.sha256).toBe(sha256(t));
    expect(tr.sha256).not.toBe(sha256((r.content[0] as { text: string }).text));
    expect(tr.total_chars).toBe(100);
  });
});

describe('capContent: several blocks', () => {
  it('caps each block on its own; block_index points at each capped head in the returned content', async () => {
    const blocks = [text('short'), text('L'.repeat(12)), text('tiny'), text(SMILE.repeat(15)), text('x'.repeat(10))];
    const r = await capContent(blocks, 10);
    expect(r.content).toEqual([
      text('short'),
      text('L'.repeat(10)),
      text(note(10, 12)),
      text('tiny'),
      text(SMILE.repeat(10)),
      text(note(10, 15)),
      text('x'.repeat(10)),
    ]);
    expect(r.content[0]).toBe(blocks[0]);
    expect(r.content[3]).toBe(blocks[2]);
    expect(r.content[6]).toBe(blocks[4]);
    expect(r.truncations).toEqual([
      { block_index: 1, total_chars: 12, shown_chars: 10, sha256: sha256('L'.repeat(12)) },
      { block_index: 4, total_chars: 15, shown_chars: 10, sha256: sha256(SMILE.repeat(15)) },
    ]);
    for (const t of r.truncations) expect((r.content[t.block_index] as { text: string }).text).toHaveLength(t.total_chars === 15 ? 20 : 10);
  });

  it('returns nothing for no content, and does not mutate its input', async () => {
    expect(await capContent([], 10)).toEqual({ content: [], truncations: [] });
    const blocks = [text('a'.repeat(20)), text('b')];
    const copy = structuredClone(blocks);
    await capContent(blocks, 5);
    expect(blocks).toEqual(copy);
  });

  it('does not cap the same output twice: capping the capped content changes nothing', async () => {
    const first = await capContent([text('q'.repeat(500))], 100);
    const second = await capContent(first.content, 100);
    expect(second.truncations).toEqual([]);
    expect(second.content).toEqual(first.content);
  });
});

describe('capContent: text that looks like a truncation marker is ordinary text', () => {
  const fake = note(10, 99); // "[output capped: showing the first 10 of 99 characters]"

  it('a short fake marker is untouched and yields no truncation metadata', async () => {
    const block = text(fake);
    const r = await capContent([block], 100);
    expect(r.truncations).toEqual([]);
    expect(r.content).toEqual([block]);
    expect(r.content[0]).toBe(block);
  });

  it('a short head followed by a fake marker block yields no truncation metadata', async () => {
    const blocks = [text('x'.repeat(10)), text(fake)];
    const r = await capContent(blocks, 100);
    expect(r.truncations).toEqual([]);
    expect(r.content).toEqual(blocks);
  });

  it('a long fake marker is capped like any text', async () => {
    const r = await capContent([text(fake)], 20);
    expect(r.content).toEqual([text(fake.slice(0, 20)), text(note(20, fake.length))]);
    expect(r.truncations).toEqual([{ block_index: 0, total_chars: fake.length, shown_chars: 20, sha256: sha256(fake) }]);
  });

  it('long text that ends with a fake marker is capped with the real counts', async () => {
    const t = 'data '.repeat(40) + fake; // 200 + marker
    const r = await capContent([text(t)], 100);
    expect(r.truncations).toEqual([{ block_index: 0, total_chars: t.length, shown_chars: 100, sha256: sha256(t) }]);
    expect((r.content[0] as { text: string }).text).toBe(t.slice(0, 100));
    expect((r.content[1] as { text: string }).text).toBe(note(100, t.length));
  });

  it('a fake marker repeated beyond the cap is capped', async () => {
    const t = fake.repeat(5);
    const r = await capContent([text(t)], 100);
    expect(r.truncations).toHaveLength(1);
    expect(r.truncations[0]).toMatchObject({ block_index: 0, total_chars: t.length, shown_chars: 100 });
  });
});

describe('codePointCut: a cap of zero', () => {
  it('cuts before the first character', async () => {
    expect(codePointCut('abc', 0)).toEqual({ total: 3, cutIndex: 0 });
  });
});

describe('CappedTextCollector: streamed blocks and spill', () => {
  const fakeSink = () => {
    const sink = { written: [] as string[], committed: null as null | { chars: number; bytes: number; sha256: string }, aborted: false };
    const open = async () => ({
      write: async (c: Uint8Array) => void sink.written.push(Buffer.from(c).toString('utf8')),
      commit: async (meta: { chars: number; bytes: number; sha256: string }) => ((sink.committed = meta), 'out_test'),
      abort: async () => void (sink.aborted = true),
    });
    return { sink, open };
  };

  it('keeps only the head in memory and streams the whole text, in order, to the spill', async () => {
    const whole = Array.from({ length: 500 }, (_, i) => `chunk ${i} ${SMILE}\n`).join('');
    const { sink, open } = fakeSink();
    const c = new CappedTextCollector(50, 0, open);
    // Split into odd-sized chunks, including splits inside surrogate pairs.
    for (let i = 0; i < whole.length; i += 7) await c.write(whole.slice(i, i + 7));
    const done = await c.finish();
    expect(sink.written.join('')).toBe(whole);
    expect(done.text).toBe([...whole].slice(0, 50).join(''));
    expect(done.truncation).toEqual({
      output_id: 'out_test',
      block_index: 0,
      total_chars: [...whole].length,
      shown_chars: 50,
      sha256: sha256(whole),
    });
    expect(sink.committed).toEqual({ chars: [...whole].length, bytes: Buffer.byteLength(whole), sha256: sha256(whole) });
    expect(done.note).toBe(`[output capped: showing the first 50 of ${[...whole].length} characters; the full output is out_test]`);
  });

  it('opens no spill for text within the cap, even when it arrives in many chunks', async () => {
    const { sink, open } = fakeSink();
    const c = new CappedTextCollector(100, 0, open);
    for (const part of ['ab', SMILE.slice(0, 1), SMILE.slice(1), 'cd']) await c.write(part);
    const done = await c.finish();
    expect(done).toEqual({ text: `ab${SMILE}cd`, truncation: null, note: null });
    expect(sink.written).toEqual([]);
  });

  it('abort discards the spill', async () => {
    const { sink, open } = fakeSink();
    const c = new CappedTextCollector(5, 0, open);
    await c.write('0123456789');
    await c.abort();
    expect(sink.aborted).toBe(true);
  });
});
