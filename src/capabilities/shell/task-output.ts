// TaskOutput: a background task's output since the last read, optionally after waiting for it to end.
import { Type, type Static } from '@sinclair/typebox';
import { type TaskInfo } from './tasks.js';
import { defineTool, textOutput } from '../../tools/tool.js';
import type { ShellDeps } from './deps.js';
import { TASK_OUTPUT_DESCRIPTION } from './task-output.description.js';

const Input = Type.Object(
  {
    task_id: Type.String({ pattern: '^task_[A-Za-z0-9_-]{1,59}$', description: 'The id Bash returned' }),
    block: Type.Optional(Type.Boolean({ description: 'Wait until the task ends (at most `timeout`)' })),
    timeout: Type.Optional(Type.Integer({ minimum: 1, maximum: 600_000, description: 'Milliseconds to wait with `block` (default 30000)' })),
  },
  { additionalProperties: false },
);

export function describeTask(t: TaskInfo): string {
  if (t.status === 'running') return `Task ${t.id} is running (${t.outputBytes} bytes of output so far).`;
  const how = t.limit
    ? `was stopped: ${t.limit}`
    : t.status === 'stopped'
      ? 'was stopped'
      : t.status === 'failed'
        ? 'could not be started'
        : t.signal
          ? `was killed by ${t.signal}`
          : `exited with code ${t.exitCode}`;
  return `Task ${t.id} ${how} (${t.outputBytes} bytes of output).`;
}

export const taskOutputTool = defineTool<Static<typeof Input>, ShellDeps>({
  name: 'TaskOutput',
  description: TASK_OUTPUT_DESCRIPTION,
  inputSchema: Input,
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  requiresApproval: () => false,
  async call(input, ctx, deps) {
    const waitMs = input.block ? (input.timeout ?? 30_000) : 0;
    const r = await deps.tasks.read(input.task_id, { waitMs, signal: ctx.signal });
    const note = r.more ? '\n[more output is waiting: call TaskOutput again]' : '';
    return textOutput(`${r.text === '' ? '(no new output)\n' : r.text.endsWith('\n') ? r.text : `${r.text}\n`}${describeTask(r.info)}${note}`);
  },
});
