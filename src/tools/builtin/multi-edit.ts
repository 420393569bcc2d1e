// MultiEdit: several replacements in one file, applied in order, all or nothing.
import { Type, type Static } from '@sinclair/typebox';
import { buildTool, textOutput } from '../tool.js';
import { EditFields } from './edit.js';
import { EditRefusal, applyEdit, loadForEdit, saveText, unifiedDiff } from './file-edit.js';

const MultiEditInput = Type.Object(
  {
    file_path: Type.String({ minLength: 1, maxLength: 4096, description: 'Path of the file, relative to the workspace or absolute inside it' }),
    edits: Type.Array(Type.Object(EditFields, { additionalProperties: false }), {
      minItems: 1,
      maxItems: 100,
      description: 'Applied in order, each to the result of the previous one',
    }),
  },
  { additionalProperties: false },
);
type MultiEditInput = Static<typeof MultiEditInput>;

export const multiEditTool = buildTool<MultiEditInput>({
  name: 'MultiEdit',
  description:
    'Applies several exact-match replacements to one file the session has read, in order, each on the result of the ' +
    'previous. If any edit fails, nothing is written. The result shows one unified diff.',
  inputSchema: MultiEditInput,
  isFileEdit: true,
  isReadOnly: () => false,
  isConcurrencySafe: () => false,
  requiresApproval: () => true,
  async call(input, ctx) {
    try {
      const file = await loadForEdit(ctx, input.file_path);
      const shown = ctx.workspace.display(file.path);
      let text = file.text;
      let replacements = 0;
      for (const [i, edit] of input.edits.entries()) {
        try {
          const r = applyEdit(text, edit, file.crlf);
          text = r.text;
          replacements += r.replacements;
        } catch (err) {
          if (err instanceof EditRefusal) {
            throw new EditRefusal(`${shown}: edit ${i + 1} of ${input.edits.length}: ${err.message} Nothing was written.`);
          }
          throw err;
        }
      }
      await saveText(ctx, input.file_path, text, file.bom);
      return textOutput(`Edited ${shown} (${input.edits.length} edits, ${replacements} replacements).\n${unifiedDiff(shown, file.text, text)}`);
    } catch (err) {
      if (err instanceof EditRefusal) return textOutput(err.message, true);
      throw err;
    }
  },
});
