// Shell-style path globs matched one path segment at a time (the Glob tool), so that a walk
// descends only into directories the pattern can still match. Each segment is a literal name,
// `**` (any number of directories) or a linear-time test of one name (match.ts, linear.ts).
import { compileSegment, type GlobTest } from './match.js';
import { expandBraces, isLiteralSegment } from './pattern.js';

export type Segment = { kind: 'globstar' } | { kind: 'literal'; value: string } | { kind: 'regex'; re: GlobTest };

export interface SegmentGlob {
  /** Brace-expanded alternatives, each a list of segments. */
  readonly alternatives: readonly (readonly Segment[])[];
}

/** Splits a relative, brace-free pattern into segments (`.` and empty segments dropped). */
function splitSegments(pattern: string): string[] {
  return pattern.split('/').filter((s) => s !== '' && s !== '.');
}

export function compileSegmentGlob(pattern: string): SegmentGlob {
  const alternatives = expandBraces(pattern).map((alt) =>
    splitSegments(alt).map((seg): Segment => {
      if (seg === '**') return { kind: 'globstar' };
      if (isLiteralSegment(seg)) return { kind: 'literal', value: seg };
      return { kind: 'regex', re: compileSegment(seg, pattern) };
    }),
  );
  return { alternatives };
}

/**
 * A set of positions in the pattern alternatives: `alt * STRIDE + index`. Position `index ===
 * segments.length` means "the whole pattern matched".
 */
export type MatchState = readonly number[];
const STRIDE = 1 << 16;

function closure(glob: SegmentGlob, states: number[]): number[] {
  const out = new Set<number>();
  const stack = [...states];
  while (stack.length > 0) {
    const s = stack.pop()!;
    if (out.has(s)) continue;
    out.add(s);
    const alt = glob.alternatives[Math.floor(s / STRIDE)]!;
    const idx = s % STRIDE;
    if (alt[idx]?.kind === 'globstar') stack.push(s + 1); // `**` may match zero segments
  }
  return [...out];
}

export function initialState(glob: SegmentGlob): MatchState {
  return closure(
    glob,
    glob.alternatives.map((_, i) => i * STRIDE),
  );
}

/** The state after one more path segment named `name`; empty when nothing can match any more. */
export function stepState(glob: SegmentGlob, state: MatchState, name: string): MatchState {
  const next: number[] = [];
  for (const s of state) {
    const alt = glob.alternatives[Math.floor(s / STRIDE)]!;
    const seg = alt[s % STRIDE];
    if (seg === undefined) continue; // already complete: nothing more may follow
    if (seg.kind === 'globstar') next.push(s);
    else if (seg.kind === 'literal' ? seg.value === name : seg.re.test(name)) next.push(s + 1);
  }
  return next.length === 0 ? next : closure(glob, next);
}

/** The path walked so far is a complete match. */
export function isAccepting(glob: SegmentGlob, state: MatchState): boolean {
  return state.some((s) => s % STRIDE === glob.alternatives[Math.floor(s / STRIDE)]!.length);
}

/** More segments could still match below this point (worth descending). */
export function canContinue(glob: SegmentGlob, state: MatchState): boolean {
  return state.some((s) => s % STRIDE < glob.alternatives[Math.floor(s / STRIDE)]!.length);
}
