// TaskList: the session's background tasks and their status.
import { Type, type Static } from '@sinclair/typebox';
import { buildTool, textOutput } from '../tool.js';
import { describeTask } from './task-output.js';

const Input = Type.Object({}, { additionalProperties: false });

export const taskListTool = buildTool<Static<typeof Input>>({
  name: 'TaskList',
  description: 'Lists this session\'s background tasks with their command and status.',
  inputSchema: Input,
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  requiresApproval: () => false,
  async call(_input, ctx) {
    const tasks = ctx.tasks.list();
    if (tasks.length === 0) return textOutput('No background tasks in this session.');
    return textOutput(tasks.map((t) => `${describeTask(t)} Command: ${t.command.length > 200 ? `${t.command.slice(0, 200)}…` : t.command}`).join('\n'));
  },
});
