// Memory: the commands of Anthropic's memory tool (view, create, str_replace, insert, delete,
// rename) on the session's memory store, a directory the model sees as `/memories` (files.ts).
// Rules name its paths as the model writes them: `Memory(/memories/notes/**)`.
import { Type, type Static } from '@sinclair/typebox';
import type { RuleSubject, SubjectPath } from '../../permission/subject.js';
import { defineTool, textOutput, type PreviewResult } from '../../tools/tool.js';
import { textDiffPreview } from '../../checkpoints/text-diff.js';
import { MAX_MEMORY_FILE_BYTES, MAX_MEMORY_PATH_CHARS, MEMORY_ROOT, inserted, replacedOnce, type MemoryFiles } from './files.js';
import { MEMORY_DESCRIPTION } from './memory.description.js';

/** Longest text a command carries: no file may be longer. */
const MAX_TEXT_CHARS = MAX_MEMORY_FILE_BYTES;

const PathField = (what: string) =>
  Type.String({ minLength: 1, maxLength: MAX_MEMORY_PATH_CHARS, description: `${what}: ${MEMORY_ROOT} or a path starting with ${MEMORY_ROOT}/` });

const ViewInput = Type.Object(
  {
    command: Type.Literal('view'),
    path: PathField('The directory or file to view'),
    view_range: Type.Optional(
      Type.Tuple([Type.Integer({ minimum: 1 }), Type.Integer({ minimum: -1 })], {
        description: 'Files only: [start, end], 1-based lines; end -1 reads to the end of the file',
      }),
    ),
  },
  { additionalProperties: false },
);

const CreateInput = Type.Object(
  {
    command: Type.Literal('create'),
    path: PathField('The file to create or replace'),
    file_text: Type.String({ maxLength: MAX_TEXT_CHARS, description: 'The complete content of the file' }),
  },
  { additionalProperties: false },
);

const StrReplaceInput = Type.Object(
  {
    command: Type.Literal('str_replace'),
    path: PathField('The file to edit'),
    old_str: Type.String({ minLength: 1, maxLength: MAX_TEXT_CHARS, description: 'The exact text to replace; it must occur exactly once' }),
    new_str: Type.String({ maxLength: MAX_TEXT_CHARS, description: 'The text to put in its place' }),
  },
  { additionalProperties: false },
);

const InsertInput = Type.Object(
  {
    command: Type.Literal('insert'),
    path: PathField('The file to edit'),
    insert_line: Type.Integer({ minimum: 0, description: 'The line after which the text is inserted; 0 inserts at the top' }),
    insert_text: Type.String({ maxLength: MAX_TEXT_CHARS, description: 'The text to insert' }),
  },
  { additionalProperties: false },
);

const DeleteInput = Type.Object(
  {
    command: Type.Literal('delete'),
    path: PathField('The file or directory to delete'),
  },
  { additionalProperties: false },
);

const RenameInput = Type.Object(
  {
    command: Type.Literal('rename'),
    old_path: PathField('The file or directory to rename or move'),
    new_path: PathField('Its new path, which must not exist yet'),
  },
  { additionalProperties: false },
);

const MemoryInput = Type.Union([ViewInput, CreateInput, StrReplaceInput, InsertInput, DeleteInput, RenameInput], {
  description: 'One memory command, chosen by `command`',
});
export type MemoryInput = Static<typeof MemoryInput>;

/** What the Memory tool runs on: the session's memory store. */
export interface MemoryDeps {
  files: MemoryFiles;
}

/** The command of an input that may not have been validated yet (metadata is asked before validation too). */
function commandOf(input: unknown): unknown {
  return typeof input === 'object' && input !== null ? (input as { command?: unknown }).command : undefined;
}

/**
 * The virtual paths a call names, both as `lexical` and `real`: the store is not in the
 * workspace and rules are written against `/memories/…`. A path the tool will refuse is given
 * as written (the call refuses it whatever a rule says).
 */
async function memorySubject(input: MemoryInput, files: MemoryFiles): Promise<RuleSubject> {
  const canonical = (p: string): string => {
    try {
      return files.parse(p).virtual;
    } catch {
      return p;
    }
  };
  const subjectPath = (p: string, isDir: boolean): SubjectPath => {
    const v = canonical(p);
    return { lexical: v, real: v, isDir };
  };
  switch (input.command) {
    case 'view':
      return { kind: 'paths', access: 'read', paths: [subjectPath(input.path, await files.isDirectory(input.path))] };
    case 'delete':
      return { kind: 'paths', access: 'edit', paths: [subjectPath(input.path, await files.isDirectory(input.path))] };
    case 'rename': {
      const isDir = await files.isDirectory(input.old_path);
      return { kind: 'paths', access: 'edit', paths: [subjectPath(input.old_path, isDir), subjectPath(input.new_path, isDir)] };
    }
    default:
      return { kind: 'paths', access: 'edit', paths: [subjectPath(input.path, false)] };
  }
}

/** The diff a change to a memory file would make (create, str_replace, insert, delete); null for the others. */
async function memoryPreview(input: MemoryInput, files: MemoryFiles): Promise<PreviewResult | null> {
  if (input.command === 'view' || input.command === 'rename') return null;
  const { virtual, text } = await files.current(input.path);
  const base = { kind: 'diff' as const, path: virtual, before_sha256: null };
  if (input.command === 'delete') {
    if (text === null) return { preview: { ...base, operation: 'delete', not_shown: (await files.isDirectory(input.path)) ? 'a directory: it and everything below it would be removed' : 'there is no such file' } };
    return { preview: { ...textDiffPreview(virtual, text, null, ''), operation: 'delete' } };
  }
  if (input.command === 'create') return { preview: textDiffPreview(virtual, text, null, input.file_text) };
  if (text === null) return { preview: { ...base, operation: 'update', not_shown: 'there is no such file' } };
  try {
    const next = input.command === 'str_replace' ? replacedOnce(virtual, text, input.old_str, input.new_str).next : inserted(virtual, text, input.insert_line, input.insert_text).next;
    return { preview: textDiffPreview(virtual, text, null, next) };
  } catch (err) {
    return { preview: { ...base, operation: 'update', not_shown: `the change cannot be made: ${err instanceof Error ? err.message : String(err)}` } };
  }
}

export const memoryTool = defineTool<MemoryInput, MemoryDeps>({
  name: 'Memory',
  description: MEMORY_DESCRIPTION,
  inputSchema: MemoryInput,
  isReadOnly: (input) => commandOf(input) === 'view',
  isConcurrencySafe: (input) => commandOf(input) === 'view',
  requiresApproval: (input) => commandOf(input) !== 'view',
  permissionSubject: (input, _ctx, deps) => memorySubject(input, deps.files),
  preview: (input, _ctx, deps) => memoryPreview(input, deps.files),
  async call(input, _ctx, deps) {
    const files = deps.files;
    switch (input.command) {
      case 'view':
        return textOutput(await files.view(input.path, input.view_range));
      case 'create':
        return textOutput(await files.create(input.path, input.file_text));
      case 'str_replace':
        return textOutput(await files.strReplace(input.path, input.old_str, input.new_str));
      case 'insert':
        return textOutput(await files.insert(input.path, input.insert_line, input.insert_text));
      case 'delete':
        return textOutput(await files.delete(input.path));
      case 'rename':
        return textOutput(await files.rename(input.old_path, input.new_path));
    }
  },
});
