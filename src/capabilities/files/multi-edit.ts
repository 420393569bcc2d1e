// MultiEdit: several replacements in one file, applied in order, all or nothing.
import { Type, type Static } from '@sinclair/typebox';
import { defineTool } from '../../tools/tool.js';
import type { FileDeps } from './deps.js';
import { fileSubject } from './subject-paths.js';
import { EditFields } from './edit.js';
import { FILE_EDIT_METADATA, FilePathField, previewEdits, runEdits } from './file-edit.js';
import { MULTI_EDIT_DESCRIPTION } from './multi-edit.description.js';

const MultiEditInput = Type.Object(
  {
    file_path: FilePathField,
    edits: Type.Array(Type.Object(EditFields, { additionalProperties: false }), {
      minItems: 1,
      maxItems: 100,
      description: 'Applied in order, each to the result of the previous one',
    }),
  },
  { additionalProperties: false },
);
type MultiEditInput = Static<typeof MultiEditInput>;

export const multiEditTool = defineTool<MultiEditInput, FileDeps>({
  name: 'MultiEdit',
  description: MULTI_EDIT_DESCRIPTION,
  inputSchema: MultiEditInput,
  permissionSubject: (input, ctx) => fileSubject(ctx, 'edit', input.file_path, false),
  preview: (input, ctx, deps) => previewEdits(ctx, deps, input.file_path, input.edits),
  ...FILE_EDIT_METADATA,
  call: (input, ctx, deps) => runEdits(ctx, deps.readState, input.file_path, input.edits, 'multi'),
});
