// Grep: regex search of file contents in the workspace, backed by ripgrep when `rg` is on PATH
// and by a TypeScript engine otherwise (grep-fallback.ts). Both print the same output for the
// same input (grep-output.ts formats for both).
//
// Semantics (the same in both engines):
//   - searched: every regular file under `path` (default: the workspace root), hidden files
//     included, .gitignore/.ignore files NOT applied, `.git` entries skipped, symlinks never
//     followed, binary files (a NUL byte in the first 64 KiB) skipped; a file named as `path`
//     is searched whatever `glob`/`type` say;
//   - `glob`: ripgrep's --glob (gitignore-style, `!` excludes; an inclusion glob leaves out the
//     files it does not match and takes precedence over `type`), `type`: ripgrep's --type;
//   - the regex is ripgrep's (Rust) syntax; case-sensitive unless `-i`.
// The search path is resolved and confined by the Workspace before either engine runs.
//
// Where the engines can differ (none of it on ordinary text): the regex dialect at its edges
// (grep-regex.ts: JS `\w`/`\d`/`\b` are ASCII-only, look-around accepted by the fallback only,
// `.` meets invalid UTF-8 as U+FFFD in the fallback); a NUL byte only after a file's first
// 64 KiB; UTF-16 files (ripgrep transcodes them, the fallback sees NULs: binary); file types
// beyond the fallback's table (src/glob/file-types.ts); error wording; the fallback's size
// caps (lines over 16 MiB, multiline files over 32 MiB, each noted in the output). The fallback
// runs JavaScript's backtracking RegExp on the event loop: a pathological pattern can be slow
// and cannot be interrupted mid-line, which ripgrep's linear-time engine rules out.
import { Type, type Static } from '@sinclair/typebox';
import { accessSync, constants as FS, statSync } from 'node:fs';
import path from 'node:path';
import { PathRefusal, type Workspace } from '../../sandbox/paths.js';
import { defineTool, textOutput, type ToolFactory, type ToolOutput } from '../../tools/tool.js';
import type { FileDeps } from './deps.js';
import { fileSubject } from './subject-paths.js';
import { GlobSyntaxError } from '../../glob/pattern.js';
import { GrepUsageError, RG_BUFFER_BYTES, searchFallback, type SearchTarget } from './grep-fallback.js';
import { GREP_DEFAULT_MAX_LINES, GrepCollector, type GrepQuery } from './grep-output.js';
import { GrepRegexError } from './grep-regex.js';
import { RipgrepInputError, searchRipgrep } from './grep-rg.js';
import { grepDescription } from './grep.description.js';

const Count = (what: string) => Type.Optional(Type.Integer({ minimum: 0, maximum: 1000, description: what }));

const GrepInput = Type.Object(
  {
    pattern: Type.String({ minLength: 1, maxLength: 4096, description: 'Regular expression (ripgrep/Rust syntax)' }),
    path: Type.Optional(Type.String({ minLength: 1, maxLength: 4096, description: 'File or directory to search (default: the workspace root)' })),
    glob: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'Only files matching this glob, e.g. "*.ts" or "src/**/*.{js,jsx}"; "!glob" excludes' })),
    type: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_+-]+$', description: 'Only files of this type (ripgrep --type), e.g. js, ts, py, go, rust, md, json' })),
    output_mode: Type.Optional(
      Type.Union([Type.Literal('content'), Type.Literal('files_with_matches'), Type.Literal('count')], {
        description: 'content: matching lines; files_with_matches: paths (default); count: path:N matching lines',
      }),
    ),
    '-i': Type.Optional(Type.Boolean({ description: 'Case-insensitive' })),
    '-n': Type.Optional(Type.Boolean({ description: 'Line numbers in content mode (default true)' })),
    '-A': Count('Lines of context after each match (content mode)'),
    '-B': Count('Lines of context before each match (content mode)'),
    '-C': Count('Lines of context before and after each match (content mode)'),
    multiline: Type.Optional(Type.Boolean({ description: 'Let the pattern match across lines ("." still stops at a newline)' })),
    head_limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, description: 'Show at most this many output lines' })),
  },
  { additionalProperties: false },
);
type GrepInput = Static<typeof GrepInput>;

export type GrepBackend = { kind: 'ripgrep'; path: string } | { kind: 'fallback' };

/** The absolute path of an executable `rg` on `searchPath` (default PATH), or null. */
export function findRipgrep(searchPath: string = process.env.PATH ?? ''): string | null {
  for (const dir of searchPath.split(path.delimiter)) {
    if (!dir || !path.isAbsolute(dir)) continue; // a relative PATH entry would depend on the cwd
    const candidate = path.join(dir, 'rg');
    try {
      accessSync(candidate, FS.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

/** Which engine Grep uses with this ripgrep (for /readyz). */
export function grepBackend(rgPath: string | null): GrepBackend {
  return rgPath ? { kind: 'ripgrep', path: rgPath } : { kind: 'fallback' };
}

function queryOf(input: GrepInput): GrepQuery {
  const mode = input.output_mode ?? 'files_with_matches';
  const content = mode === 'content';
  return {
    pattern: input.pattern,
    ignoreCase: input['-i'] === true,
    multiline: input.multiline === true,
    mode,
    lineNumbers: input['-n'] ?? true,
    before: content ? (input['-B'] ?? input['-C'] ?? 0) : 0,
    after: content ? (input['-A'] ?? input['-C'] ?? 0) : 0,
    ...(input.glob !== undefined ? { glob: input.glob } : {}),
    ...(input.type !== undefined ? { type: input.type } : {}),
    limit: input.head_limit ?? GREP_DEFAULT_MAX_LINES,
    headLimited: input.head_limit !== undefined,
  };
}

/** Resolves `path` inside the workspace; a named file is checked to be a regular text file. */
async function resolveTarget(ws: Workspace, userPath: string): Promise<SearchTarget | ToolOutput> {
  try {
    const dir = await ws.readDirectory(userPath);
    return { kind: 'dir', real: dir.real, rel: ws.display(dir.real), entries: dir.entries };
  } catch (err) {
    if (!(err instanceof PathRefusal) || err.rule !== 'is not a directory') throw err;
  }
  const file = await ws.openForRead(userPath);
  try {
    const real = await ws.real(userPath);
    const head = Buffer.alloc(Math.min(file.size, RG_BUFFER_BYTES + 3));
    const { bytesRead } = await file.handle.read(head, 0, head.length, 0);
    const bom = bytesRead >= 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
    if (head.subarray(bom, Math.min(bytesRead, bom + RG_BUFFER_BYTES)).includes(0)) {
      return textOutput(`No matches found.\n[${ws.display(real)} is a binary file; it was not searched]`);
    }
    return { kind: 'file', real, rel: ws.display(real) };
  } finally {
    await file.handle.close();
  }
}

function isWithin(p: string, root: string): boolean {
  return p === root || p.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

/** A Grep tool on a given engine: `rgPath` null forces the TypeScript fallback. */
export function createGrepTool(opts: { rgPath: string | null }): ToolFactory<FileDeps> {
  const rgPath = opts.rgPath;
  return defineTool<GrepInput, FileDeps>({
    name: 'Grep',
    description: grepDescription({ defaultMaxLines: GREP_DEFAULT_MAX_LINES }),
    inputSchema: GrepInput,
    permissionSubject: (input, ctx) => fileSubject(ctx, 'read', input.path ?? '.', 'stat'),
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    requiresApproval: () => false,
    async call(input, ctx, deps) {
      if (input.pattern.includes('\0')) return textOutput('Grep pattern contains a NUL byte.', true);
      const q = queryOf(input);
      const target = await resolveTarget(ctx.workspace, input.path ?? '.');
      if (!('kind' in target)) return target;
      const out = new GrepCollector(q);
      try {
        const exclude = (abs: string, isDir: boolean) => deps.readDenied('Grep', abs, isDir) !== null;
        // ripgrep only inside the process sandbox, on a target inside the workspace it mounts;
        // anywhere else the TypeScript engine, which goes through the path sandbox.
        const sandboxed = rgPath !== null && deps.sandbox.host.runsInside(rgPath) && isWithin(target.real, ctx.workspace.root);
        if (sandboxed) {
          const start = (argv: string[]) => deps.sandbox.spawn({ argv, readOnly: true });
          await searchRipgrep(start, rgPath, ctx.workspace.root, target, q, out, ctx.signal, exclude);
        } else await searchFallback(ctx.workspace, target, q, out, ctx.signal, exclude);
      } catch (err) {
        if (err instanceof RipgrepInputError || err instanceof GrepRegexError || err instanceof GrepUsageError) return textOutput(err.message, true);
        if (err instanceof GlobSyntaxError) return textOutput(`error parsing glob: ${err.message}`, true);
        throw err;
      }
      return textOutput(out.render());
    },
  });
}

