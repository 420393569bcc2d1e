// Glob: files of the workspace whose path matches a shell-style pattern, newest first.
//
// Semantics (documented to the model in glob.description.ts):
//   - the pattern is matched against paths relative to `path` (default: the workspace root);
//     `*`, `?`, `[...]` never cross `/`; `**` as a whole segment spans any number of directories;
//     `{a,b}` alternatives may contain `/`; nothing is special about dot-files (`*` matches them);
//   - only non-directories are reported; symlinked directories are never descended into; a
//     symlink is reported only when its real target is a file inside the workspace (others are
//     counted in a note, never shown);
//   - `..` segments are refused; an absolute pattern must lie inside the workspace (it is then
//     taken relative to the workspace root and `path` is ignored);
//   - nothing is skipped silently: unreadable directories are counted in a note.
// Results are sorted by modification time, newest first (ties by path), and capped.
import { Type, type Static } from '@sinclair/typebox';
import type { Dirent } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { PathRefusal, type Workspace } from '../../sandbox/paths.js';
import { defineTool, textOutput, type ToolOutput } from '../../tools/tool.js';
import type { FileDeps } from './deps.js';
import { fileSubject, globRoot } from './subject-paths.js';
import { expandBraces, GlobSyntaxError, isLiteralSegment, unescapeSegment } from '../../glob/pattern.js';
import { canContinue, compileSegmentGlob, initialState, isAccepting, stepState, type MatchState, type SegmentGlob } from '../../glob/segments.js';
import { childDir, mapLimit, walkTree, type WalkDir } from './glob-walk.js';
import { globDescription } from './glob.description.js';

export const GLOB_MAX_RESULTS = 1000;

const GlobInput = Type.Object(
  {
    pattern: Type.String({ minLength: 1, maxLength: 4096, description: 'Glob pattern, e.g. "**/*.ts" or "src/**/*.{js,jsx}"' }),
    path: Type.Optional(
      Type.String({ minLength: 1, maxLength: 4096, description: 'Directory to search from, relative to the workspace or absolute inside it (default: the workspace root)' }),
    ),
  },
  { additionalProperties: false },
);
type GlobInput = Static<typeof GlobInput>;

interface Match {
  rel: string;
  mtimeMs: number;
}

/** A refusal of the pattern itself, naming the rule. */
function refusePattern(pattern: string, rule: string): ToolOutput {
  return textOutput(`Glob pattern "${pattern}": ${rule}`, true);
}

/**
 * Splits an absolute pattern into the workspace root (or added directory) that contains it and
 * the rest, relative to that root. Null when its literal prefix is outside the workspace.
 */
function anchorAbsolute(ws: Workspace, pattern: string): { base: string; relPattern: string } | null {
  const segs = pattern.split('/').filter((s) => s !== '' && s !== '.');
  let literal = 0;
  while (literal < segs.length && isLiteralSegment(segs[literal]!)) literal++;
  if (literal === segs.length) literal--; // the last segment is what is matched, not a directory
  const prefix = `/${segs.slice(0, literal).map(unescapeSegment).join('/')}`;
  let resolved: string;
  try {
    resolved = ws.resolve(prefix); // also maps an alias of the workspace to its real path
  } catch {
    return null;
  }
  // Climb to the outermost directory still inside (the root that holds the prefix), so that
  // the walk below it never follows a symlink, exactly like a relative pattern.
  let base = resolved;
  while (path.dirname(base) !== base && ws.isInside(path.dirname(base))) base = path.dirname(base);
  const rest = [path.relative(base, resolved), ...segs.slice(literal)].filter((s) => s !== '');
  return { base, relPattern: rest.join('/') };
}

export const globTool = defineTool<GlobInput, FileDeps>({
  name: 'Glob',
  description: globDescription({ maxResults: GLOB_MAX_RESULTS }),
  inputSchema: GlobInput,
  permissionSubject: (input, ctx) => fileSubject(ctx, 'read', globRoot(input.pattern, input.path), true),
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  requiresApproval: () => false,
  async call(input, ctx, deps) {
    const ws = ctx.workspace;
    const raw = input.pattern;
    if (raw.includes('\0')) return refusePattern(JSON.stringify(raw), 'contains a NUL byte');

    let alternatives: string[];
    try {
      alternatives = expandBraces(raw);
    } catch (err) {
      if (err instanceof GlobSyntaxError) return refusePattern(raw, err.problem);
      throw err;
    }
    const absolute = raw.startsWith('/');
    for (const alt of alternatives) {
      if (alt.split('/').includes('..')) return refusePattern(raw, '".." segments are not allowed (Glob never leaves the directory it searches)');
      if (alt.startsWith('/') !== absolute) return refusePattern(raw, 'mixes absolute and relative alternatives');
    }

    // Where to start: `path`, or for an absolute pattern the root that contains it.
    let startUserPath = input.path ?? '.';
    let relPattern = raw;
    if (absolute) {
      const anchored = anchorAbsolute(ws, raw);
      if (!anchored) return refusePattern(raw, 'absolute pattern outside the workspace');
      startUserPath = anchored.base;
      relPattern = anchored.relPattern;
    }

    let glob: SegmentGlob;
    try {
      glob = compileSegmentGlob(relPattern);
    } catch (err) {
      if (err instanceof GlobSyntaxError) return refusePattern(raw, err.problem);
      throw err;
    }

    const top = await ws.readDirectory(startUserPath);
    const start: WalkDir<MatchState> = { abs: top.real, rel: ws.display(top.real), state: initialState(glob) };

    const matches: Match[] = [];
    let symlinksLeftOut = 0;
    let ruleLeftOut = 0;
    const stats = await walkTree<MatchState>(
      ws,
      start,
      async (dir, entries: Dirent[]) => {
        const subdirs: WalkDir<MatchState>[] = [];
        const candidates: Dirent[] = [];
        for (const entry of entries) {
          const state = stepState(glob, dir.state, entry.name);
          if (state.length === 0) continue;
          if (deps.readDenied('Glob', path.join(dir.abs, entry.name), entry.isDirectory()) !== null) {
            ruleLeftOut++;
            continue;
          }
          if (entry.isDirectory()) {
            if (canContinue(glob, state)) subdirs.push(childDir(dir, entry.name, state));
          } else if (isAccepting(glob, state)) {
            candidates.push(entry);
          }
        }
        await mapLimit(candidates, 16, async (entry) => {
          const abs = path.join(dir.abs, entry.name);
          const rel = dir.rel === '.' ? entry.name : `${dir.rel}/${entry.name}`;
          if (entry.isSymbolicLink()) {
            const target = await linkTarget(ws, abs);
            if (target === 'outside') symlinksLeftOut++;
            else if (target !== 'directory') matches.push({ rel, mtimeMs: target.mtimeMs });
            return;
          }
          // Metadata only, never following the last component, of an entry of a directory the
          // workspace just listed and verified. An entry that vanished meanwhile is no match.
          const st = await fs.lstat(abs).catch(() => null);
          if (st && !st.isDirectory()) matches.push({ rel, mtimeMs: st.mtimeMs });
        });
        return subdirs;
      },
      { signal: ctx.signal, startEntries: top.entries },
    );
    if (stats.aborted) throw new Error('cancelled');

    matches.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
    const lines = matches.slice(0, GLOB_MAX_RESULTS).map((m) => m.rel);
    if (lines.length === 0) {
      const where = ws.display(top.real);
      lines.push(`No files matched "${raw}" in ${where === '.' ? 'the workspace root' : where}.`);
    }
    if (matches.length > GLOB_MAX_RESULTS) {
      lines.push(`[${matches.length - GLOB_MAX_RESULTS} more files matched (${matches.length} in all); only the ${GLOB_MAX_RESULTS} most recently modified are shown. Narrow the pattern or path.]`);
    }
    if (symlinksLeftOut > 0) {
      lines.push(`[${symlinksLeftOut} matching symlink(s) left out: they lead outside the workspace or nowhere]`);
    }
    if (ruleLeftOut > 0) lines.push(`[${ruleLeftOut} path(s) left out: a permission rule covers reading them]`);
    if (stats.unreadableDirs > 0) {
      lines.push(stats.unreadableDirs === 1 ? '[1 unreadable directory was skipped]' : `[${stats.unreadableDirs} unreadable directories were skipped]`);
    }
    return textOutput(lines.join('\n'));
  },
});

/** What a matching symlink leads to: a file inside (with its mtime), a directory, or out. */
async function linkTarget(ws: Workspace, abs: string): Promise<{ mtimeMs: number } | 'directory' | 'outside'> {
  let real: string;
  try {
    real = await ws.real(abs);
  } catch (err) {
    if (err instanceof PathRefusal) return 'outside';
    throw err;
  }
  const st = await fs.stat(real).catch(() => null);
  if (!st) return 'outside';
  return st.isDirectory() ? 'directory' : { mtimeMs: st.mtimeMs };
}
