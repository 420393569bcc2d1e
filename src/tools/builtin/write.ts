// Write: creates or replaces a whole file inside the workspace, atomically.
import { Type, type Static } from '@sinclair/typebox';
import { buildTool, textOutput } from '../tool.js';

const WriteInput = Type.Object(
  {
    file_path: Type.String({ minLength: 1, maxLength: 4096, description: 'Path of the file, relative to the workspace or absolute inside it' }),
    content: Type.String({ description: 'The complete new content of the file' }),
  },
  { additionalProperties: false },
);
type WriteInput = Static<typeof WriteInput>;

export const writeTool = buildTool<WriteInput>({
  name: 'Write',
  description:
    'Writes a file in the workspace, replacing it whole if it exists. Parent directories are created. ' +
    'The write is atomic: readers see the old or the new content, never a mix.',
  inputSchema: WriteInput,
  isFileEdit: true,
  isReadOnly: () => false,
  isConcurrencySafe: () => false,
  requiresApproval: () => true,
  async call(input, ctx) {
    const result = await ctx.workspace.writeFileAtomic(input.file_path, input.content);
    const shown = ctx.workspace.display(result.path);
    const bytes = Buffer.byteLength(input.content, 'utf8');
    return textOutput(result.created ? `Created ${shown} (${bytes} bytes).` : `Replaced ${shown} (${bytes} bytes).`);
  },
});
