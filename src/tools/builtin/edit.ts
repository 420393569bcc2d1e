// Edit: one exact-match replacement in a text file the session has read.
import { Type, type Static } from '@sinclair/typebox';
import { buildTool, textOutput } from '../tool.js';
import { EditRefusal, applyEdit, loadForEdit, saveText, unifiedDiff } from './file-edit.js';

export const EditFields = {
  old_string: Type.String({ minLength: 1, description: 'The exact text to replace (whitespace and indentation included)' }),
  new_string: Type.String({ description: 'The replacement text' }),
  replace_all: Type.Optional(Type.Boolean({ description: 'Replace every occurrence instead of requiring a unique match' })),
};

const EditInput = Type.Object(
  {
    file_path: Type.String({ minLength: 1, maxLength: 4096, description: 'Path of the file, relative to the workspace or absolute inside it' }),
    ...EditFields,
  },
  { additionalProperties: false },
);
type EditInput = Static<typeof EditInput>;

export const editTool = buildTool<EditInput>({
  name: 'Edit',
  description:
    'Replaces `old_string` with `new_string` in a file the session has read. `old_string` must match exactly once ' +
    'unless `replace_all` is set. Line endings and a UTF-8 byte-order mark are preserved. The result shows a unified diff.',
  inputSchema: EditInput,
  isFileEdit: true,
  isReadOnly: () => false,
  isConcurrencySafe: () => false,
  requiresApproval: () => true,
  async call(input, ctx) {
    try {
      const file = await loadForEdit(ctx, input.file_path);
      const shown = ctx.workspace.display(file.path);
      let edited;
      try {
        edited = applyEdit(file.text, input, file.crlf);
      } catch (err) {
        if (err instanceof EditRefusal) throw new EditRefusal(`${shown}: ${err.message}`);
        throw err;
      }
      await saveText(ctx, input.file_path, edited.text, file.bom);
      return textOutput(`Edited ${shown} (${edited.replacements} replacement${edited.replacements === 1 ? '' : 's'}).\n${unifiedDiff(shown, file.text, edited.text)}`);
    } catch (err) {
      if (err instanceof EditRefusal) return textOutput(err.message, true);
      throw err;
    }
  },
});
