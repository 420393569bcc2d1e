// Once for the whole run: what test processes could not remove themselves (a worker ended
// without its exit handlers, a server process killed with SIGKILL) is removed at the end.
import { sweepStaleCgroups } from '../src/sandbox/limits.js';

export default function setup(): () => Promise<void> {
  return async () => {
    // Workers are gone by now: every cgroup of theirs belongs to a dead pid.
    await sweepStaleCgroups();
  };
}
