// What Bash and the background-task tools share for a session: its sandbox and its tasks.
import type { SessionSandbox } from '../../sandbox/session-sandbox.js';
import type { BackgroundTasks } from './tasks.js';

export interface ShellDeps {
  sandbox: SessionSandbox;
  tasks: BackgroundTasks;
}
