// Shared by Write, Edit and MultiEdit: the read-before-write rule, text decoding that can be
// written back byte-for-byte (UTF-8 with or without BOM), line-ending aware replacement, and
// the unified diff each result carries.
import { Type } from '@sinclair/typebox';
import { lazy } from '../../lazy.js';

const diff = lazy<typeof import('diff')>('diff');
import { PathRefusal } from '../../sandbox/paths.js';
import { ToolRefusal, textOutput, type PreviewResult, type ToolContext, type ToolOutput } from '../../tools/tool.js';
import type { FileDeps } from './deps.js';
import { filePreview } from './preview.js';
import type { FileReadState } from './read-state.js';

const BOM = '\uFEFF';
/** Files larger than this get a summary instead of a diff (diffing is superlinear). */
const MAX_DIFF_BYTES = 1024 * 1024;

export class EditRefusal extends ToolRefusal {}

/** The `file_path` property every file-changing tool takes. */
export const FilePathField = Type.String({
  minLength: 1,
  maxLength: 4096,
  description: 'Path of the file, relative to the workspace or absolute inside it',
});

/** Security metadata shared by Write, Edit and MultiEdit: mutating, exclusive, approval-required file edits. */
export const FILE_EDIT_METADATA = {
  isFileEdit: true,
  isReadOnly: () => false,
  isConcurrencySafe: () => false,
  requiresApproval: () => true,
} as const;

/**
 * Applies `edits` in order to a file the session has read, all or nothing, and writes it back.
 * Refusals are EditRefusals (ToolRefusals) naming the file, and the edit when there are several.
 */
export async function runEdits(ctx: ToolContext, readState: FileReadState, userPath: string, edits: readonly EditSpec[], label: 'single' | 'multi'): Promise<ToolOutput> {
  const file = await loadForEdit(ctx, readState, userPath);
  const shown = ctx.workspace.display(file.path);
  let text = file.text;
  let replacements = 0;
  for (const [i, edit] of edits.entries()) {
    try {
      const r = applyEdit(text, edit, file.crlf);
      text = r.text;
      replacements += r.replacements;
    } catch (err) {
      if (!(err instanceof EditRefusal)) throw err;
      throw new EditRefusal(
        label === 'single' ? `${shown}: ${err.message}` : `${shown}: edit ${i + 1} of ${edits.length}: ${err.message} Nothing was written.`,
      );
    }
  }
  await saveText(ctx, readState, userPath, text, file.bom);
  const summary =
    label === 'single'
      ? `Edited ${shown} (${replacements} replacement${replacements === 1 ? '' : 's'}).`
      : `Edited ${shown} (${edits.length} edits, ${replacements} replacements).`;
  return textOutput(`${summary}\n${unifiedDiff(shown, file.text, text)}`);
}

/** What `edits` would make of the file (every one applied in order; one that would fail is said). */
export function previewEdits(ctx: ToolContext, deps: FileDeps, userPath: string, edits: readonly EditSpec[]): Promise<PreviewResult> {
  return filePreview(ctx, deps, userPath, (before) => {
    if (before === null) throw new EditRefusal('the file does not exist (Write creates a file)');
    const crlf = before.includes('\r\n');
    let text = before;
    for (const [i, edit] of edits.entries()) {
      try {
        text = applyEdit(text, edit, crlf).text;
      } catch (err) {
        if (edits.length > 1 && err instanceof Error) throw new EditRefusal(`edit ${i + 1} of ${edits.length}: ${err.message}`);
        throw err;
      }
    }
    return text;
  });
}

/**
 * Checks that an existing file was read in this session and has not changed since.
 * Returns false when the file does not exist (a Write may create it).
 */
export async function requireReadIfExists(ctx: ToolContext, readState: FileReadState, userPath: string): Promise<boolean> {
  let file;
  try {
    file = await ctx.workspace.openForRead(userPath);
  } catch (err) {
    if (err instanceof PathRefusal && err.rule === 'does not exist') return false;
    throw err;
  }
  await file.handle.close();
  const check = readState.check(file.path, file);
  if (!check.ok) {
    const shown = ctx.workspace.display(file.path);
    throw new EditRefusal(
      check.reason === 'unread'
        ? `${shown}: not read yet in this session; Read it first so the change is based on its current content.`
        : `${shown}: changed since it was last read (modified ${new Date(file.mtimeMs).toISOString()}); Read it again first.`,
    );
  }
  return true;
}

export interface EditableText {
  path: string;
  text: string;
  bom: boolean;
  crlf: boolean;
}

/** Loads a file for editing: it must exist, have been read, be unchanged, and be UTF-8 text. */
export async function loadForEdit(ctx: ToolContext, readState: FileReadState, userPath: string): Promise<EditableText> {
  await requireReadIfExists(ctx, readState, userPath).then((exists) => {
    if (!exists) throw new PathRefusal(userPath, 'does not exist (use Write to create a file)');
  });
  const file = await ctx.workspace.openForRead(userPath);
  let bytes: Buffer;
  try {
    bytes = await file.handle.readFile();
  } finally {
    await file.handle.close();
  }
  const shown = ctx.workspace.display(file.path);
  if (bytes.includes(0)) throw new EditRefusal(`${shown}: is a binary file; Edit only changes text.`);
  let text = bytes.toString('utf8');
  if (!Buffer.from(text, 'utf8').equals(bytes)) {
    throw new EditRefusal(`${shown}: is not valid UTF-8, so it cannot be edited without changing its encoding.`);
  }
  const bom = text.startsWith(BOM);
  if (bom) text = text.slice(1);
  return { path: file.path, text, bom, crlf: text.includes('\r\n') };
}

export interface EditSpec {
  old_string: string;
  new_string: string;
  replace_all?: boolean;
}

/** Applies one exact-match replacement; in a CRLF file, `\n` in the strings means `\r\n`. */
export function applyEdit(text: string, edit: EditSpec, crlf: boolean): { text: string; replacements: number } {
  if (edit.old_string === edit.new_string) throw new EditRefusal('old_string and new_string are identical; there is nothing to change.');
  const adapt = (s: string) => (crlf && !s.includes('\r') ? s.replace(/\n/g, '\r\n') : s);
  let oldString = edit.old_string;
  let newString = edit.new_string;
  if (!text.includes(oldString) && text.includes(adapt(oldString))) {
    oldString = adapt(oldString);
    newString = adapt(newString);
  }
  const count = text.split(oldString).length - 1;
  if (count === 0) throw new EditRefusal('old_string was not found in the file; it must match exactly, including whitespace and indentation.');
  if (count > 1 && !edit.replace_all) {
    throw new EditRefusal(`old_string matches ${count} places; add surrounding context to make it unique, or set replace_all to change every one.`);
  }
  return { text: text.split(oldString).join(newString), replacements: edit.replace_all ? count : 1 };
}

/** Writes the edited text back (BOM kept) and records the new version as seen. */
export async function saveText(ctx: ToolContext, readState: FileReadState, userPath: string, text: string, bom: boolean): Promise<{ path: string; previous: string | null; created: boolean }> {
  const written = await ctx.workspace.writeFileAtomic(userPath, bom ? BOM + text : text);
  const reopened = await ctx.workspace.openForRead(userPath);
  await reopened.handle.close();
  readState.record(reopened.path, reopened);
  return written;
}

export function unifiedDiff(shownPath: string, before: string, after: string): string {
  if (Buffer.byteLength(before) + Buffer.byteLength(after) > MAX_DIFF_BYTES) {
    return `(diff omitted: the file is larger than ${MAX_DIFF_BYTES} bytes)`;
  }
  const strip = (s: string) => (s.startsWith(BOM) ? s.slice(1) : s);
  return diff().createTwoFilesPatch(`a/${shownPath}`, `b/${shownPath}`, strip(before), strip(after), undefined, undefined, { context: 3 })
    .split('\n')
    .slice(1) // drop the "====" separator line
    .join('\n')
    .trimEnd();
}
