import { describe, it, expect } from 'vitest';
import { createHash } from 'node:crypto';
import { capContent, capNote } from '../../src/pipeline/output-cap.js';
import type { ResultBlock, Truncation } from '../../src/contract/schemas.js';
import type { SpillSink } from '../../src/store/outputs.js';

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
const text = (t: string): ResultBlock => ({ type: 'text', text: t });
const image = (data: string, media_type: 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp' = 'image/png'): ResultBlock => ({
  type: 'image',
  source: { type: 'base64', media_type, data },
});

const CAP = 10;

describe('capContent with image blocks', () => {
  it('images pass through unchanged and in place; capped text is followed by its note; block_index points at the head', async () => {
    // An image's base64 is far over the cap: it must not be capped.
    const imgA = image('A'.repeat(1000));
    const imgB = image('B'.repeat(40), 'image/jpeg');
    const imgC = image('C'.repeat(64), 'image/webp');
    const long1 = 'x'.repeat(25);
    const long2 = 'y'.repeat(13);
    const input: ResultBlock[] = [imgA, text(long1), imgB, text('short'), text(long2), imgC];
    const snapshot = structuredClone(input);

    const { content, truncations } = await capContent(input, CAP);

    expect(content).toEqual([
      imgA,
      text('x'.repeat(CAP)),
      text(capNote(CAP, 25, undefined)),
      imgB,
      text('short'),
      text('y'.repeat(CAP)),
      text(capNote(CAP, 13, undefined)),
      imgC,
    ]);
    // The very same image objects, untouched.
    expect(content[0]).toBe(imgA);
    expect(content[3]).toBe(imgB);
    expect(content[7]).toBe(imgC);
    expect(input).toEqual(snapshot);

    expect(truncations).toEqual([
      { block_index: 1, total_chars: 25, shown_chars: CAP, sha256: sha256(long1) },
      { block_index: 5, total_chars: 13, shown_chars: CAP, sha256: sha256(long2) },
    ]);
    for (const t of truncations) {
      const head = content[t.block_index]!;
      expect(head.type).toBe('text');
      expect(head.type === 'text' && head.text.length).toBe(CAP);
      expect(content[t.block_index + 1]).toEqual(text(capNote(t.shown_chars, t.total_chars, undefined)));
    }
  });

  it('content of images only is returned as is, with no truncations', async () => {
    const imgs = [image('Z'.repeat(500)), image('Y'.repeat(500), 'image/gif')];
    const { content, truncations } = await capContent(imgs, CAP);
    expect(content).toEqual(imgs);
    expect(content[0]).toBe(imgs[0]);
    expect(content[1]).toBe(imgs[1]);
    expect(truncations).toEqual([]);
  });

  it('the spill is opened for the index of the capped text in the returned content, and its id is in the note', async () => {
    const opened: number[] = [];
    const spilled: Record<number, string> = {};
    const openSpill = async (blockIndex: number): Promise<SpillSink> => {
      opened.push(blockIndex);
      let data = '';
      return {
        write: async (chunk) => {
          data += Buffer.from(chunk).toString('utf8');
        },
        commit: async () => {
          spilled[blockIndex] = data;
          return `out_${blockIndex}`;
        },
        abort: async () => undefined,
      };
    };
    const first = 'first text over the cap';
    const second = 'second text over the cap';
    const input = [text(first), image('QUJD'), image('REVG'), text(second), image('R0hJ')];
    const { content, truncations } = await capContent(input, CAP, openSpill);

    expect(content.map((b) => b.type)).toEqual(['text', 'text', 'image', 'image', 'text', 'text', 'image']);
    expect(opened).toEqual([0, 4]);
    expect(spilled).toEqual({ 0: first, 4: second });
    expect(truncations.map((t) => [t.block_index, t.output_id])).toEqual([
      [0, 'out_0'],
      [4, 'out_4'],
    ]);
    expect(content[1]).toEqual(text(capNote(CAP, first.length, 'out_0')));
    expect(content[5]).toEqual(text(capNote(CAP, second.length, 'out_4')));
    expect(content[2]).toBe(input[1]);
    expect(content[3]).toBe(input[2]);
    expect(content[6]).toBe(input[4]);
  });

  it('a precapped block after an image and a capped text is re-indexed into the returned content', async () => {
    const pre: Truncation = { block_index: 99, total_chars: 500, shown_chars: CAP, sha256: 'f'.repeat(64), output_id: 'out_pre' };
    const precappedHead = text('p'.repeat(CAP));
    const input = [text('z'.repeat(30)), image('QUJD'), precappedHead, image('REVG')];
    const { content, truncations } = await capContent(input, CAP, null, new Map([[2, pre]]));
    // [head, note, image, precapped head (kept as is), image]
    expect(content).toHaveLength(5);
    expect(content[2]).toBe(input[1]);
    expect(content[3]).toBe(precappedHead);
    expect(content[4]).toBe(input[3]);
    expect(truncations).toEqual([
      { block_index: 0, total_chars: 30, shown_chars: CAP, sha256: sha256('z'.repeat(30)) },
      { ...pre, block_index: 3 },
    ]);
  });

  it('text exactly at the cap next to images is not capped', async () => {
    const input = [image('QUJD'), text('a'.repeat(CAP)), image('REVG')];
    const { content, truncations } = await capContent(input, CAP);
    expect(content).toEqual(input);
    expect(truncations).toEqual([]);
  });
});
