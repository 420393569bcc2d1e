// TaskStop: stops a background task and everything it started.
import { Type, type Static } from '@sinclair/typebox';
import { defineTool, textOutput } from '../../tools/tool.js';
import type { ShellDeps } from './deps.js';
import { describeTask } from './task-output.js';
import { TASK_STOP_DESCRIPTION } from './task-stop.description.js';

const Input = Type.Object({ task_id: Type.String({ pattern: '^task_[A-Za-z0-9_-]{1,59}$' }) }, { additionalProperties: false });

export const taskStopTool = defineTool<Static<typeof Input>, ShellDeps>({
  name: 'TaskStop',
  description: TASK_STOP_DESCRIPTION,
  inputSchema: Input,
  isReadOnly: () => false,
  isConcurrencySafe: () => false,
  requiresApproval: () => false,
  // Stopping the session's own background work cannot reach anything else.
  checkPermissions: async () => ({ behavior: 'allow', reason: 'stops only this session\'s own background task' }),
  async call(input, ctx, deps) {
    return textOutput(describeTask(await deps.tasks.stop(input.task_id)));
  },
});
