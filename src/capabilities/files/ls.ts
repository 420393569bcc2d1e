// LS: a directory tree inside the workspace, directories marked with a trailing slash.
import { Type, type Static } from '@sinclair/typebox';
import path from 'node:path';
import { defineTool, textOutput } from '../../tools/tool.js';
import type { FileDeps } from './deps.js';
import { fileSubject } from './subject-paths.js';
import { compileNameGlob } from '../../glob/match.js';
import { GlobSyntaxError } from '../../glob/pattern.js';
import { lsDescription } from './ls.description.js';

export const LS_MAX_ENTRIES = 1000;
const LS_MAX_DEPTH = 8;

const LsInput = Type.Object(
  {
    path: Type.String({ minLength: 1, maxLength: 4096, description: 'Directory to list, relative to the workspace or absolute inside it' }),
    ignore: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 256 }), { maxItems: 64, description: 'Glob patterns of names to leave out' })),
  },
  { additionalProperties: false },
);
type LsInput = Static<typeof LsInput>;

/**
 * A name test for one `ignore` glob. In these globs a backslash and a `}` without its `{` are
 * ordinary characters, and a glob that does not parse (an unclosed `[` or `{`) matches its own
 * text: they are written into the shared glob syntax accordingly.
 */
function ignoreTest(glob: string): (name: string) => boolean {
  let g = '';
  let depth = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '[') {
      // Up to the closing `]` (a leading `!`, `^` or `]` belongs to the class), copied as is.
      let j = i + 1;
      if (glob[j] === '!' || glob[j] === '^') j++;
      if (glob[j] === ']') j++;
      const end = glob.indexOf(']', j);
      const body = end < 0 ? glob.slice(i) : glob.slice(i, end + 1);
      g += body.replace(/\\/g, '\\\\');
      i += body.length - 1;
    } else if (c === '\\' || (c === '}' && depth === 0)) {
      g += `\\${c}`;
    } else {
      if (c === '{') depth++;
      else if (c === '}') depth--;
      g += c;
    }
  }
  try {
    const re = compileNameGlob(g);
    return (name) => re.test(name);
  } catch (err) {
    if (err instanceof GlobSyntaxError) return (name) => name === glob;
    throw err;
  }
}

export const lsTool = defineTool<LsInput, FileDeps>({
  name: 'LS',
  description: lsDescription({ maxEntries: LS_MAX_ENTRIES, maxDepth: LS_MAX_DEPTH }),
  inputSchema: LsInput,
  permissionSubject: (input, ctx) => fileSubject(ctx, 'read', input.path, true),
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  requiresApproval: () => false,
  async call(input, ctx, deps) {
    const ignore = (input.ignore ?? []).map(ignoreTest);
    const lines: string[] = [];
    let truncated = false;
    const top = await ctx.workspace.readDirectory(input.path);
    lines.push(`${ctx.workspace.display(top.path)}/`);

    let leftOut = 0;
    const walk = async (dirUserPath: string, entries: import('node:fs').Dirent[], depth: number): Promise<void> => {
      const realDir = await ctx.workspace.real(dirUserPath);
      const sorted = entries
        .filter((e) => !ignore.some((test) => test(e.name)))
        .filter((e) => {
          const denied = deps.readDenied('LS', path.join(realDir, e.name), e.isDirectory()) !== null;
          if (denied) leftOut++;
          return !denied;
        })
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const entry of sorted) {
        if (ctx.signal.aborted) return;
        if (lines.length > LS_MAX_ENTRIES) {
          truncated = true;
          return;
        }
        const indent = '  '.repeat(depth);
        const child = path.join(dirUserPath, entry.name);
        if (entry.isSymbolicLink()) {
          lines.push(`${indent}- ${entry.name} -> (symlink, not followed)`);
        } else if (entry.isDirectory()) {
          lines.push(`${indent}- ${entry.name}/`);
          if (depth < LS_MAX_DEPTH) {
            const sub = await ctx.workspace.readDirectory(child);
            await walk(child, sub.entries, depth + 1);
          }
        } else {
          lines.push(`${indent}- ${entry.name}`);
        }
      }
    };
    await walk(top.path, top.entries, 1);
    if (leftOut > 0) lines.push(`[${leftOut} entr${leftOut === 1 ? 'y' : 'ies'} left out: a permission rule covers reading them]`);
    if (truncated) lines.push(`[listing stopped at ${LS_MAX_ENTRIES} entries; list a subdirectory for more]`);
    return textOutput(lines.join('\n'));
  },
});
