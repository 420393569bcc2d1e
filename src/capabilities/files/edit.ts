// Edit: one exact-match replacement in a text file the session has read.
import { Type, type Static } from '@sinclair/typebox';
import { defineTool } from '../../tools/tool.js';
import type { FileDeps } from './deps.js';
import { fileSubject } from './subject-paths.js';
import { FILE_EDIT_METADATA, FilePathField, previewEdits, runEdits } from './file-edit.js';
import { EDIT_DESCRIPTION } from './edit.description.js';

export const EditFields = {
  old_string: Type.String({ minLength: 1, description: 'The exact text to replace (whitespace and indentation included)' }),
  new_string: Type.String({ description: 'The replacement text' }),
  replace_all: Type.Optional(Type.Boolean({ description: 'Replace every occurrence instead of requiring a unique match' })),
};

const EditInput = Type.Object({ file_path: FilePathField, ...EditFields }, { additionalProperties: false });
type EditInput = Static<typeof EditInput>;

export const editTool = defineTool<EditInput, FileDeps>({
  name: 'Edit',
  description: EDIT_DESCRIPTION,
  inputSchema: EditInput,
  permissionSubject: (input, ctx) => fileSubject(ctx, 'edit', input.file_path, false),
  preview: (input, ctx, deps) => previewEdits(ctx, deps, input.file_path, [input]),
  ...FILE_EDIT_METADATA,
  call: (input, ctx, deps) => runEdits(ctx, deps.readState, input.file_path, [input], 'single'),
});
