// The `paths` of a rewind: globs over workspace-relative paths, gitignore-style (a glob without a
// slash matches at any depth; one with a slash is anchored at the root), matched in linear time
// (glob/linear.ts: no pattern backtracks). A path is selected when a glob matches it or one of
// the directories above it, so `src` takes everything below src. What could name something
// outside the workspace is refused, not interpreted: absolute paths, `..`, NUL, negation.
import { compileIgnoreGlob, type IgnoreGlob } from '../glob/match.js';
import { GlobSyntaxError, expandBraces } from '../glob/pattern.js';

export const MAX_PATHS = 256;
const MAX_GLOB = 1_024;
/** Brace alternatives over all the globs: each is tested against every path. */
const MAX_ALTERNATIVES = 1_024;

/** A test of paths, or the problems (one per bad glob, each naming its index). */
export function compileSelection(globs: readonly string[]): { ok: true; test: (p: string) => boolean } | { ok: false; problems: string[] } {
  const problems: string[] = [];
  if (globs.length > MAX_PATHS) return { ok: false, problems: [`paths: at most ${MAX_PATHS} globs`] };
  const compiled: IgnoreGlob[] = [];
  let alternatives = 0;
  globs.forEach((g, i) => {
    const field = `paths[${i}]`;
    if (g.length === 0 || g.length > MAX_GLOB) return problems.push(`${field}: between 1 and ${MAX_GLOB} characters`);
    if (g.includes('\0')) return problems.push(`${field}: contains a NUL byte`);
    if (g.startsWith('/')) return problems.push(`${field}: a path relative to the workspace, not an absolute one`);
    if (g.startsWith('!')) return problems.push(`${field}: negation is not supported; name what to rewind`);
    if (g.split('/').some((s) => s === '..')) return problems.push(`${field}: ".." would leave the workspace`);
    try {
      alternatives += expandBraces(g).length;
      if (alternatives > MAX_ALTERNATIVES) return problems.push(`${field}: the globs expand to more than ${MAX_ALTERNATIVES} alternatives ({a,b} braces); name fewer`);
      compiled.push(compileIgnoreGlob(g.replace(/^\.\//, '')));
    } catch (err) {
      problems.push(`${field}: ${err instanceof GlobSyntaxError ? err.message : String(err)}`);
    }
    return undefined;
  });
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    test: (p) => {
      for (let at = p.length; at > 0; at = p.lastIndexOf('/', at - 1)) {
        const prefix = p.slice(0, at);
        if (compiled.some((g) => g.re.test(prefix))) return true;
      }
      return false;
    },
  };
}
