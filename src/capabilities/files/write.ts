// Write: creates or replaces a whole file inside the workspace, atomically. An existing file
// must have been read in this session and be unchanged since.
import { Type, type Static } from '@sinclair/typebox';
import { defineTool, textOutput } from '../../tools/tool.js';
import type { FileDeps } from './deps.js';
import { fileSubject } from './subject-paths.js';
import { FILE_EDIT_METADATA, FilePathField, requireReadIfExists, saveText, unifiedDiff } from './file-edit.js';
import { WRITE_DESCRIPTION } from './write.description.js';
import { filePreview } from './preview.js';

const WriteInput = Type.Object(
  {
    file_path: FilePathField,
    content: Type.String({ description: 'The complete new content of the file' }),
  },
  { additionalProperties: false },
);
type WriteInput = Static<typeof WriteInput>;

export const writeTool = defineTool<WriteInput, FileDeps>({
  name: 'Write',
  description: WRITE_DESCRIPTION,
  inputSchema: WriteInput,
  permissionSubject: (input, ctx) => fileSubject(ctx, 'edit', input.file_path, false),
  preview: (input, ctx, deps) => filePreview(ctx, deps, input.file_path, () => input.content),
  ...FILE_EDIT_METADATA,
  async call(input, ctx, deps) {
    await requireReadIfExists(ctx, deps.readState, input.file_path);
    const result = await saveText(ctx, deps.readState, input.file_path, input.content, false);
    const shown = ctx.workspace.display(result.path);
    const bytes = Buffer.byteLength(input.content, 'utf8');
    const summary = result.created ? `Created ${shown} (${bytes} bytes).` : `Replaced ${shown} (${bytes} bytes).`;
    if (!result.created && result.previous === input.content) return textOutput(`${summary} The content is unchanged.`);
    return textOutput(`${summary}\n${unifiedDiff(shown, result.previous ?? '', input.content)}`);
  },
});
