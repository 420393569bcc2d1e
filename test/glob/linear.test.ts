// The glob matchers against picomatch, which they replace: the same answers on every glob and
// path drawn here (differential), and linear time where picomatch's regexes backtrack.
import { describe, expect, it } from 'vitest';
import picomatch from 'picomatch';
import { compileIgnoreGlob, compileNameGlob } from '../../src/glob/match.js';
import { expandBraces, GlobSyntaxError } from '../../src/glob/pattern.js';

// ---- the oracle: picomatch configured as the matchers were before ----------------------------
const PICOMATCH: picomatch.PicomatchOptions = { dot: true, nobrace: true, noextglob: true, nonegate: true, literalBrackets: false, strictSlashes: true, windows: false };
const escaped = (c: string, inClass: boolean): string => (c === '\\' ? (inClass ? '\\x5c' : '[\\x5c]') : /[A-Za-z0-9]/.test(c) || c.charCodeAt(0) > 0x7f ? c : `\\${c}`);
function picoSource(seg: string): string {
  let out = '';
  for (let i = 0; i < seg.length; i++) {
    const c = seg[i]!;
    if (c === '\\') out += escaped(seg[++i]!, false);
    else if (c === '*' || c === '?') out += c;
    else if (c === '[') {
      let j = i + 1;
      let cls = '[';
      if (seg[j] === '!' || seg[j] === '^') {
        cls += '^';
        j++;
      }
      let first = true;
      for (; j < seg.length && (first || seg[j] !== ']'); j++, first = false) {
        const d = seg[j]!;
        if (d === '\\') cls += escaped(seg[++j]!, true);
        else cls += d === '-' ? d : escaped(d, true);
      }
      out += `${cls}]`;
      i = j;
    } else out += escaped(c, false);
  }
  return out;
}
const oracle = (sources: string[]): RegExp => new RegExp(sources.map((s) => `(?:${s === '' ? '^$' : picomatch.makeRe(s, PICOMATCH).source})`).join('|'));
const oracleName = (glob: string) => oracle(expandBraces(glob).map(picoSource));
const oraclePath = (glob: string) => oracle(expandBraces(glob.includes('/') ? glob.replace(/^\//, '') : `**/${glob}`).map((alt) => alt.split('/').map((s) => (s === '**' ? s : picoSource(s))).join('/')));

// ---- a seeded draw ------------------------------------------------------------------------------
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}
const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

const NAME_ATOMS = ['a', 'b', '.', '-', '*', '*', '?', '[ab]', '[!a]', '[a-c]', '[]a]', '\\*', 'ä', '{a,b}'];
const NAME_CHARS = ['a', 'b', 'c', '.', '-', '*', 'ä', ']'];
function drawName(r: () => number, atoms: readonly string[], max: number): string {
  let s = '';
  const n = 1 + Math.floor(r() * max);
  for (let i = 0; i < n; i++) s += pick(r, atoms);
  return s;
}
// `.` and `..` are never the name of an entry a walk meets nor a segment of the normalized paths
// rules see; picomatch treats them apart (`*` does not match them, `?` does), we do not.
const entryName = (r: () => number, atoms: readonly string[], max: number): string => {
  for (;;) {
    const s = drawName(r, atoms, max);
    if (s !== '.' && s !== '..') return s;
  }
};

describe('linear globs agree with picomatch', () => {
  it('on 4,000 name globs against 20 names each', () => {
    const r = rng(7);
    let compared = 0;
    let matched = 0;
    for (let i = 0; i < 4000; i++) {
      const glob = drawName(r, NAME_ATOMS, 6);
      const mine = compileNameGlob(glob);
      const theirs = oracleName(glob);
      for (let k = 0; k < 20; k++) {
        const name = entryName(r, NAME_CHARS, 6);
        const want = theirs.test(name);
        expect({ glob, name, match: mine.test(name) }).toEqual({ glob, name, match: want });
        compared++;
        if (want) matched++;
      }
    }
    // The draw is not degenerate: a fair share of cases match.
    expect(compared).toBe(80_000);
    expect(matched).toBeGreaterThan(5_000);
  });

  it('on 3,000 path globs (with ** and anchoring) against 20 paths each', () => {
    const r = rng(11);
    const segAtoms = ['a', 'b', '*', '?', '[ab]', '.x'];
    let matched = 0;
    for (let i = 0; i < 3000; i++) {
      const segs = Array.from({ length: 1 + Math.floor(r() * 4) }, () => (r() < 0.25 ? '**' : drawName(r, segAtoms, 3)));
      const glob = (r() < 0.3 ? '/' : '') + segs.join('/');
      const mine = compileIgnoreGlob(glob).re;
      const theirs = oraclePath(glob);
      for (let k = 0; k < 20; k++) {
        const p = Array.from({ length: 1 + Math.floor(r() * 4) }, () => entryName(r, ['a', 'b', 'x', '.'], 3)).join('/');
        const want = theirs.test(p);
        expect({ glob, p, match: mine.test(p) }).toEqual({ glob, p, match: want });
        if (want) matched++;
      }
    }
    expect(matched).toBeGreaterThan(3_000);
  });

  it('on the cases that have meant something particular', () => {
    const name = (g: string, s: string) => compileNameGlob(g).test(s);
    const path = (g: string, p: string) => compileIgnoreGlob(g).re.test(p);
    expect(name('*', '.env')).toBe(true); // dot-files are not special
    expect(name('[!a]*', '/x')).toBe(false); // a class never matches `/`
    expect(name('a?c', 'a/c')).toBe(false);
    expect(name('a*c', 'a/c')).toBe(false);
    expect(name('?', '😀')).toBe(true); // one code point
    expect(name('[😀]', '😀')).toBe(true);
    expect(name('\\[x]', '[x]')).toBe(true);
    expect(path('src/**', 'src')).toBe(false); // what is inside, not the directory itself
    expect(path('src/**', 'src/a/b')).toBe(true);
    expect(path('a/**/b', 'a/b')).toBe(true);
    expect(path('a/**/b', 'a/x/y/b')).toBe(true);
    expect(path('**/x', 'x')).toBe(true);
    expect(path('*.ts', 'deep/er/a.ts')).toBe(true);
    expect(path('/a/*.ts', 'b/a/c.ts')).toBe(false);
    expect(() => compileNameGlob('a[b')).toThrow(GlobSyntaxError);
    expect(() => compileNameGlob('a\\')).toThrow(GlobSyntaxError);
  });
});

describe('linear globs take linear time', () => {
  // Each of these kept picomatch's regex busy for seconds to hours; here each costs at most
  // (name × glob) steps. Counted in steps, not timed: a 2-core machine under load stays exact.
  const hostile = [
    { glob: `${'*a'.repeat(12)}*b`, name: 'a'.repeat(200) },
    { glob: `${'?*'.repeat(20)}x`, name: 'y'.repeat(250) },
    { glob: `${'*[ab]'.repeat(15)}c`, name: 'ab'.repeat(120) },
  ];
  it.each(hostile)('$glob against a 200-character name that does not match', ({ glob, name }) => {
    const t0 = performance.now();
    expect(compileNameGlob(glob).test(name)).toBe(false);
    expect(compileIgnoreGlob(glob).re.test(`d/${name}`)).toBe(false);
    expect(compileIgnoreGlob(`**/${glob}/**/${glob}`).re.test(`${name}/${name}/${name}/${name}`)).toBe(false);
    // A generous bound that a backtracking matcher misses by orders of magnitude (picomatch: > 10 s
    // for the first); the work here is about 200 × 25 steps.
    expect(performance.now() - t0).toBeLessThan(2000);
  });
});
