// ShellRead: the terminal output of a PTY shell since the last read.
import { Type, type Static } from '@sinclair/typebox';
import { stripAnsi } from './shells.js';
import { defineTool, textOutput } from '../../tools/tool.js';
import type { PtyDeps } from './deps.js';
import { SHELL_READ_DESCRIPTION } from './shell-read.description.js';

const Input = Type.Object(
  {
    shell_id: Type.String({ pattern: '^shell_[A-Za-z0-9_-]{1,58}$' }),
    wait_ms: Type.Optional(Type.Integer({ minimum: 0, maximum: 30_000, description: 'Wait this long for output when none is there yet (default 500)' })),
    strip_ansi: Type.Optional(Type.Boolean({ description: 'Remove terminal escape sequences (default false)' })),
  },
  { additionalProperties: false },
);

export const shellReadTool = defineTool<Static<typeof Input>, PtyDeps>({
  name: 'ShellRead',
  description: SHELL_READ_DESCRIPTION,
  inputSchema: Input,
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  requiresApproval: () => false,
  async call(input, ctx, deps) {
    const r = await deps.shells.read(input.shell_id, input.wait_ms ?? 500, ctx.signal);
    const text = input.strip_ansi ? stripAnsi(r.text) : r.text;
    const notes = [
      ...(r.dropped > 0 ? [`[${r.dropped} characters of older output were dropped: read more often]`] : []),
      ...(r.exited ? [`[the shell exited with code ${r.exited.code}]`] : []),
    ];
    return textOutput([text === '' ? '(no new output)' : text, ...notes].join('\n'));
  },
});
