// ShellResize: changes a PTY shell's terminal size.
import { Type, type Static } from '@sinclair/typebox';
import { defineTool, textOutput } from '../../tools/tool.js';
import type { PtyDeps } from './deps.js';
import { SHELL_RESIZE_DESCRIPTION } from './shell-resize.description.js';

const Input = Type.Object(
  {
    shell_id: Type.String({ pattern: '^shell_[A-Za-z0-9_-]{1,58}$' }),
    cols: Type.Integer({ minimum: 20, maximum: 500 }),
    rows: Type.Integer({ minimum: 5, maximum: 200 }),
  },
  { additionalProperties: false },
);

export const shellResizeTool = defineTool<Static<typeof Input>, PtyDeps>({
  name: 'ShellResize',
  description: SHELL_RESIZE_DESCRIPTION,
  inputSchema: Input,
  isReadOnly: () => false,
  isConcurrencySafe: () => false,
  requiresApproval: () => false,
  checkPermissions: async () => ({ behavior: 'allow', reason: 'resizing a terminal runs no command' }),
  async call(input, ctx, deps) {
    deps.shells.resize(input.shell_id, input.cols, input.rows);
    return textOutput(`Resized ${input.shell_id} to ${input.cols}x${input.rows}.`);
  },
});
