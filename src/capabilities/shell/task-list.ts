// TaskList: the session's background tasks and their status.
import { Type, type Static } from '@sinclair/typebox';
import { defineTool, textOutput } from '../../tools/tool.js';
import type { ShellDeps } from './deps.js';
import { describeTask } from './task-output.js';
import { TASK_LIST_DESCRIPTION } from './task-list.description.js';

const Input = Type.Object({}, { additionalProperties: false });

export const taskListTool = defineTool<Static<typeof Input>, ShellDeps>({
  name: 'TaskList',
  description: TASK_LIST_DESCRIPTION,
  inputSchema: Input,
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  requiresApproval: () => false,
  async call(_input, _ctx, deps) {
    const tasks = deps.tasks.list();
    if (tasks.length === 0) return textOutput('No background tasks in this session.');
    return textOutput(tasks.map((t) => `${describeTask(t)} Command: ${t.command.length > 200 ? `${t.command.slice(0, 200)}…` : t.command}`).join('\n'));
  },
});
