// What a file edit would do, for a person to judge before allowing it: the unified diff against
// the file as it is now (a new file: its lines, all added; binary: sizes and digests). The file
// is read as the tools read it — inside the workspace, never through a link, regular files only
// — and not at all when a rule hides it from the session: the preview never widens what the
// session can read. What the file was is kept (its identity and digest) so an answer can say it
// changed meanwhile.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { textDiffPreview } from '../../checkpoints/text-diff.js';
import { PathRefusal } from '../../sandbox/paths.js';
import type { PreviewResult, ToolContext } from '../../tools/tool.js';
import type { FileDeps } from './deps.js';
import { readExactly } from './read.js';

/** Files larger than this are described by size, not diffed. */
const MAX_PREVIEW_FILE_BYTES = 4 * 1024 * 1024;
const BOM = '\uFEFF';

const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

/** Not text the way the edit tools take text: a NUL byte, or bytes that are not UTF-8. */
function binary(b: Buffer): boolean {
  return b.includes(0) || !Buffer.from(b.toString('utf8'), 'utf8').equals(b);
}

/**
 * The preview of a change to `userPath`: `after` turns the current text (null: no file) into the
 * new one, or throws a refusal (an Edit whose old_string is not there), which the preview states.
 */
export async function filePreview(ctx: ToolContext, deps: FileDeps, userPath: string, after: (before: string | null) => string): Promise<PreviewResult> {
  const abs = ctx.workspace.resolve(userPath);
  const shown = ctx.workspace.display(abs);
  const base = { kind: 'diff' as const, path: shown };
  let real: string;
  try {
    real = await ctx.workspace.real(userPath);
  } catch (err) {
    if (err instanceof PathRefusal && err.rule === 'does not exist') return finish(base, null, null, after, abs);
    return { preview: { ...base, operation: 'update', before_sha256: null, not_shown: refusalText(err) } };
  }
  // Never read what a rule keeps from the session (its content, its digest).
  const hidden = deps.readDenied('Read', real, false);
  if (hidden !== null) {
    return { preview: { ...base, operation: 'update', before_sha256: null, not_shown: `the rule ${JSON.stringify(hidden)} keeps the file from the session, so it is not shown` } };
  }
  let bytes: Buffer;
  let identity: Identity;
  try {
    const file = await ctx.workspace.openForRead(userPath);
    try {
      identity = { size: file.size, mtimeMs: file.mtimeMs };
      if (file.size > MAX_PREVIEW_FILE_BYTES) {
        return { preview: { ...base, operation: 'update', before_sha256: null, before_bytes: file.size, not_shown: `the file is larger than ${MAX_PREVIEW_FILE_BYTES} bytes` }, stale: staleCheck(abs, identity) };
      }
      // As big as it was when opened, at most: one that grows while it is read stops there.
      bytes = await readExactly(file.handle, file.size);
    } finally {
      await file.handle.close();
    }
  } catch (err) {
    if (err instanceof PathRefusal && err.rule === 'does not exist') return finish(base, null, null, after, abs);
    return { preview: { ...base, operation: 'update', before_sha256: null, not_shown: refusalText(err) } };
  }
  return finish(base, bytes, identity, after, abs);
}

interface Identity {
  size: number;
  mtimeMs: number;
}

function finish(base: { kind: 'diff'; path: string }, bytes: Buffer | null, identity: Identity | null, after: (before: string | null) => string, abs: string): PreviewResult {
  const stale = staleCheck(abs, identity);
  const operation = bytes === null ? 'create' : 'update';
  const before_sha256 = bytes === null ? null : sha256(bytes);
  const sizes = bytes === null ? {} : { before_bytes: bytes.length };
  if (bytes !== null && binary(bytes)) {
    let next: string | undefined;
    try {
      next = after(null);
    } catch {
      next = undefined;
    }
    return { preview: { ...base, operation, before_sha256, ...sizes, binary: true, ...(next !== undefined ? { after_sha256: sha256(next), after_bytes: Buffer.byteLength(next) } : {}) }, stale };
  }
  let text: string | null = bytes === null ? null : bytes.toString('utf8');
  if (text !== null && text.startsWith(BOM)) text = text.slice(1);
  let next: string;
  try {
    next = after(text);
  } catch (err) {
    return { preview: { ...base, operation, before_sha256, ...sizes, not_shown: `the change cannot be made: ${err instanceof Error ? err.message : String(err)}` }, stale };
  }
  return { preview: textDiffPreview(base.path, text, bytes, next), stale };
}

/** Whether the file is no longer what was previewed (changed, made, or removed since). */
function staleCheck(abs: string, identity: Identity | null): () => boolean {
  return () => {
    try {
      const st = fs.lstatSync(abs);
      return identity === null || !st.isFile() || st.size !== identity.size || st.mtimeMs !== identity.mtimeMs;
    } catch {
      return identity !== null;
    }
  };
}

function refusalText(err: unknown): string {
  return `the file cannot be shown: ${err instanceof Error ? err.message : String(err)}`;
}
