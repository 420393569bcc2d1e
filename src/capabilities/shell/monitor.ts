// Monitor: waits for a background task to print a line matching a pattern, or to end.
import { Type, type Static } from '@sinclair/typebox';
import { Busy, Overrun, seconds } from '../../bounded/worker.js';
import { UntrustedRegex } from '../../bounded/regex.js';
import { defineTool, textOutput } from '../../tools/tool.js';
import type { ShellDeps } from './deps.js';
import { describeTask } from './task-output.js';
import { MONITOR_DESCRIPTION } from './monitor.description.js';

const Input = Type.Object(
  {
    task_id: Type.String({ pattern: '^task_[A-Za-z0-9_-]{1,59}$' }),
    until: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'A JavaScript regular expression a new output line must match (default: any new line)' })),
    timeout: Type.Optional(Type.Integer({ minimum: 1, maximum: 600_000, description: 'Milliseconds to wait (default 30000)' })),
  },
  { additionalProperties: false },
);

export const monitorTool = defineTool<Static<typeof Input>, ShellDeps>({
  name: 'Monitor',
  description: MONITOR_DESCRIPTION,
  inputSchema: Input,
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  requiresApproval: () => false,
  async call(input, ctx, deps) {
    // The model writes the pattern and the command writes the lines: they are matched off the
    // event loop, with a deadline (src/bounded/regex.ts).
    let until: UntrustedRegex | null = null;
    if (input.until !== undefined) {
      try {
        until = new UntrustedRegex(input.until);
      } catch (err) {
        return textOutput(`until is not a valid regular expression: ${(err as Error).message}`, true);
      }
    }
    const pattern = until;
    let r;
    try {
      r = await deps.tasks.monitor(input.task_id, pattern ? (lines) => pattern.firstMatch(lines, { signal: ctx.signal }) : null, { waitMs: input.timeout ?? 30_000, signal: ctx.signal });
    } catch (err) {
      if (err instanceof Overrun) {
        return textOutput(
          `Monitor stopped: the until pattern took longer than ${seconds(err.deadlineMs)} to match the task's output (it backtracks on this output) and was given up. Use a simpler pattern, without nested or overlapping repetition such as (a+)+ or (a|a)*. The task goes on.`,
          true,
        );
      }
      if (err instanceof Busy) return textOutput(`Monitor stopped: the server is busy matching other patterns (${err.message}); try again shortly. The task goes on.`, true);
      throw err;
    }
    const head = r.matched !== null ? `Matched: ${r.matched}` : r.timedOut ? 'No matching line before the timeout.' : 'The task ended without a matching line.';
    return textOutput(`${head}\n${describeTask(r.info)}`);
  },
});
