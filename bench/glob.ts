// The glob matchers (src/glob/linear.ts) against the picomatch regexes they replaced, in one run:
// ordinary globs over many ordinary names (the price of never backtracking), and one hostile glob
// over one long name (what it buys).
//   npx tsx bench/glob.ts          BENCH_NAMES=400000 npx tsx bench/glob.ts
import picomatch from 'picomatch';
import { compileIgnoreGlob, compileNameGlob } from '../src/glob/match.js';
import { expandBraces } from '../src/glob/pattern.js';

const NAMES = Number(process.env.BENCH_NAMES ?? 200_000);
const OPTIONS: picomatch.PicomatchOptions = { dot: true, nobrace: true, noextglob: true, nonegate: true, literalBrackets: false, strictSlashes: true, windows: false };
const regexOf = (glob: string): RegExp => new RegExp(expandBraces(glob).map((g) => `(?:${picomatch.makeRe(g, OPTIONS).source})`).join('|'));

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}
const r = rng(3);
const STEMS = ['index', 'file12', 'README', 'component', 'util', 'test_helpers', 'a', 'mod3'];
const EXTS = ['.ts', '.tsx', '.md', '.json', '.js', '', '.test.ts'];
const names = Array.from({ length: NAMES }, () => STEMS[Math.floor(r() * STEMS.length)]! + (r() < 0.5 ? String(Math.floor(r() * 100)) : '') + EXTS[Math.floor(r() * EXTS.length)]!);
const paths = names.map((n, i) => `src/pkg${i % 7}/mod${i % 5}/${n}`);

function time(fn: () => number): { ms: number; hits: number } {
  fn(); // warm-up
  const t0 = performance.now();
  const hits = fn();
  return { ms: performance.now() - t0, hits };
}

console.log(`${NAMES} names`);
for (const glob of ['*.ts', 'file1?.*', '*.{md,json}', '[a-c]*', '*test*.ts']) {
  const mine = compileNameGlob(glob);
  const theirs = regexOf(glob);
  const a = time(() => names.filter((n) => mine.test(n)).length);
  const b = time(() => names.filter((n) => theirs.test(n)).length);
  if (a.hits !== b.hits) throw new Error(`${glob}: ${a.hits} matches, picomatch ${b.hits}`);
  console.log(`  name "${glob}": linear ${a.ms.toFixed(1)} ms, picomatch ${b.ms.toFixed(1)} ms, ratio ${(a.ms / b.ms).toFixed(2)}x (${a.hits} matches)`);
}
for (const glob of ['src/**/*.ts', '**/mod3/*.{md,json}']) {
  const mine = compileIgnoreGlob(glob).re;
  const theirs = regexOf(glob);
  const a = time(() => paths.filter((p) => mine.test(p)).length);
  const b = time(() => paths.filter((p) => theirs.test(p)).length);
  if (a.hits !== b.hits) throw new Error(`${glob}: ${a.hits} matches, picomatch ${b.hits}`);
  console.log(`  path "${glob}": linear ${a.ms.toFixed(1)} ms, picomatch ${b.ms.toFixed(1)} ms, ratio ${(a.ms / b.ms).toFixed(2)}x (${a.hits} matches)`);
}
const hostile = '*a*a*a*b';
const long = 'a'.repeat(200);
const h = time(() => (compileNameGlob(hostile).test(long) ? 1 : 0));
const p = time(() => (regexOf(hostile).test(long) ? 1 : 0));
console.log(`  hostile "${hostile}" over 200 a's: linear ${h.ms.toFixed(2)} ms, picomatch ${p.ms.toFixed(0)} ms, ratio ${(p.ms / h.ms).toFixed(0)}x in linear's favour`);
