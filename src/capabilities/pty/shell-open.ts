// ShellOpen: starts a persistent interactive bash on a PTY, inside the process sandbox.
import { Type, type Static } from '@sinclair/typebox';
import { defineTool, textOutput } from '../../tools/tool.js';
import type { PtyDeps } from './deps.js';
import { SHELL_OPEN_DESCRIPTION } from './shell-open.description.js';

const Input = Type.Object(
  {
    cols: Type.Optional(Type.Integer({ minimum: 20, maximum: 500, description: 'Terminal width (default 120)' })),
    rows: Type.Optional(Type.Integer({ minimum: 5, maximum: 200, description: 'Terminal height (default 40)' })),
  },
  { additionalProperties: false },
);

export const shellOpenTool = defineTool<Static<typeof Input>, PtyDeps>({
  name: 'ShellOpen',
  description: SHELL_OPEN_DESCRIPTION,
  inputSchema: Input,
  isReadOnly: () => false,
  isConcurrencySafe: () => false,
  requiresApproval: () => false,
  // Opening runs nothing the user typed; what is typed is checked by ShellWrite.
  checkPermissions: async () => ({ behavior: 'allow', reason: 'opening a shell runs no command' }),
  async call(input, ctx, deps) {
    // The shell's connections are asked about (and refused) in the name of the call that opened it.
    const id = await deps.shells.open(deps.sandbox, input.cols ?? 120, input.rows ?? 40, { toolUseId: ctx.toolUseId, turnId: ctx.turnId, kind: 'call' });
    return textOutput(`Opened shell ${id}. Type with ShellWrite (end a command with "\\r"), read the screen with ShellRead.`);
  },
});
