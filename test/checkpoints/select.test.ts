// A rewind's `paths`: gitignore-style globs over workspace paths, a directory taking what is below
// it; what could leave the workspace or blow up matching is refused with the index it is at.
import { describe, expect, it } from 'vitest';
import { compileSelection } from '../../src/checkpoints/select.js';

const select = (globs: string[]) => {
  const s = compileSelection(globs);
  if (!s.ok) throw new Error(s.problems.join('; '));
  return s.test;
};

describe('rewind paths', () => {
  it('match at any depth without a slash, from the root with one; a directory takes what is below it', () => {
    const t = select(['*.md', 'src/lib', './docs/a.txt']);
    expect(['README.md', 'x/y/notes.md', 'src/lib', 'src/lib/a/b.ts', 'docs/a.txt'].every(t)).toBe(true);
    expect(['src/library.ts', 'x/src/lib/a.ts', 'docs/b.txt', 'a.mdx'].some(t)).toBe(false);
  });

  it('refuses absolute paths, .., negation, NUL and brace bombs, each by its index', () => {
    const r = compileSelection(['ok', '/etc/passwd', 'a/../../b', '!x', 'a\u0000b', '']);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems.map((p) => p.slice(0, p.indexOf(':')))).toEqual(['paths[1]', 'paths[2]', 'paths[3]', 'paths[4]', 'paths[5]']);
    // 256 alternatives each: five of them pass the bound on what every path is tested against.
    const bomb = '{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}{o,p}';
    const many = compileSelection([bomb, bomb, bomb, bomb, bomb]);
    expect(many.ok).toBe(false);
    if (!many.ok) expect(many.problems[0]).toMatch(/^paths\[4\]: the globs expand to more than 1024 alternatives/);
    expect(compileSelection(Array.from({ length: 257 }, () => 'a')).ok).toBe(false);
  });
});
