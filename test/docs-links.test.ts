// The README is a landing page and the guides in docs/ are read in one sitting: every relative link
// resolves (the file, and the heading its #anchor names), every guide opens with a table of its
// contents that matches its headings, the README links every guide, and the questions people ask
// first are one click from it.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DOCUMENTS, GUIDES, headings, links, read, root } from './helpers/markdown.js';

const ALL = [...DOCUMENTS, 'docs/DESIGN.md', 'clients/typescript/README.md'].filter((f) => fs.existsSync(path.join(root, f)));

describe('the README and the guides', () => {
  it('the README is a landing page: at most 300 lines', () => {
    expect(read('README.md').split('\n').length).toBeLessThanOrEqual(300);
  });

  it('every relative link resolves to a file, and its #anchor to a heading there', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const file of ALL) {
      for (const link of links(read(file))) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(link.target)) continue; // http:, https:, mailto:
        const [target, anchor] = link.target.split('#') as [string, string | undefined];
        const resolved = target === '' ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), target));
        checked++;
        if (!fs.existsSync(path.join(root, resolved))) {
          broken.push(`${file}:${link.line}: ${link.target} (no ${resolved})`);
          continue;
        }
        if (anchor === undefined) continue;
        if (!resolved.endsWith('.md')) {
          broken.push(`${file}:${link.line}: ${link.target} (an anchor into a file that is not Markdown)`);
          continue;
        }
        if (!headings(read(resolved)).some((h) => h.anchor === anchor)) broken.push(`${file}:${link.line}: ${link.target} (no heading #${anchor} in ${resolved})`);
      }
    }
    expect(checked).toBeGreaterThan(40);
    expect(broken).toEqual([]);
  });

  for (const guide of GUIDES) {
    it(`${guide} opens with a title and a table of contents that lists its sections in order`, () => {
      const text = read(guide);
      const all = headings(text);
      expect(all[0]?.level, guide).toBe(1);
      expect(all.filter((h) => h.level === 1)).toHaveLength(1);
      const sections = all.filter((h) => (h.level === 2 || h.level === 3) && h.text !== 'Contents');
      expect(sections.length).toBeGreaterThanOrEqual(2);
      // The contents: the first `##` section, a list of links, one per section.
      expect(all[1]?.text).toBe('Contents');
      const start = text.indexOf('## Contents\n');
      const block = text.slice(start, text.indexOf('\n## ', start + 1));
      const listed = [...block.matchAll(/^( *)- \[[^\]]+\]\(#([^)]+)\)$/gm)].map((m) => ({ level: m[1]!.length === 0 ? 2 : 3, anchor: m[2]! }));
      expect(listed).toEqual(sections.map((h) => ({ level: h.level, anchor: h.anchor })));
    });
  }

  it('the README links every guide, and answers the first questions in one click', () => {
    const targets = links(read('README.md')).map((l) => l.target);
    for (const guide of GUIDES) expect(targets, guide).toContain(guide);
    for (const answer of [
      'docs/EVENTS.md#in-node-with-a-key-the-eventsource-package', // how do I follow events from Node with a key
      'docs/TENANTS.md#making-a-key', // how do I make a key
      'docs/CONFIGURATION.md#host-names-why-421', // why 421
    ]) expect(targets, answer).toContain(answer);
  });

  it('the anchors are GitHub\'s: lower case, punctuation dropped, repeats numbered', () => {
    expect(headings('# A\n## In Node, with a key: the `eventsource` package\n## Why 421?\n## Why 421?').map((h) => h.anchor)).toEqual([
      'a',
      'in-node-with-a-key-the-eventsource-package',
      'why-421',
      'why-421-1',
    ]);
  });
});
