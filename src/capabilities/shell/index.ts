// Bash and the background tasks it starts (TaskOutput, TaskStop, TaskList, Monitor): one group,
// because a task is a Bash command run in the background and the task tools read the same list.
// The analysis cache Bash keeps is made once, by the composition root.
import type { Capability } from '../../tools/capability.js';
import { createBashTool, type BashToolOptions } from './bash.js';
import type { ShellDeps } from './deps.js';
import { monitorTool } from './monitor.js';
import { taskListTool } from './task-list.js';
import { taskOutputTool } from './task-output.js';
import { taskStopTool } from './task-stop.js';
import { BackgroundTasks } from './tasks.js';

export function shellCapability(opts: BashToolOptions = {}): Capability<ShellDeps> {
  return {
    group: 'shell',
    tools: [createBashTool(opts), taskOutputTool, taskStopTool, taskListTool, monitorTool],
    install: (s) => {
      const tasks = new BackgroundTasks(s.tasksDir, s.newId, s.clock, s.taskEvents);
      return { deps: { sandbox: s.sandbox, tasks }, close: () => tasks.closeAll() };
    },
  };
}
