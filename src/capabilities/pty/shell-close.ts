// ShellClose: ends a PTY shell and everything running in it.
import { Type, type Static } from '@sinclair/typebox';
import { defineTool, textOutput } from '../../tools/tool.js';
import type { PtyDeps } from './deps.js';
import { SHELL_CLOSE_DESCRIPTION } from './shell-close.description.js';

const Input = Type.Object({ shell_id: Type.String({ pattern: '^shell_[A-Za-z0-9_-]{1,58}$' }) }, { additionalProperties: false });

export const shellCloseTool = defineTool<Static<typeof Input>, PtyDeps>({
  name: 'ShellClose',
  description: SHELL_CLOSE_DESCRIPTION,
  inputSchema: Input,
  isReadOnly: () => false,
  isConcurrencySafe: () => false,
  requiresApproval: () => false,
  checkPermissions: async () => ({ behavior: 'allow', reason: 'stops only this session\'s own shell' }),
  async call(input, ctx, deps) {
    deps.shells.close(input.shell_id);
    return textOutput(`Closed ${input.shell_id}.`);
  },
});
