// Monitor's `until` is the model's regular expression, matched against the output of a command the
// model also wrote: it is matched in a worker thread with a deadline, so a pattern that backtracks
// on a line ends that Monitor call with an error and never holds the event loop.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REGEX_DEADLINE_MS, UntrustedRegex } from '../../../src/bounded/regex.js';
import { findBwrap } from '../../../src/sandbox/process.js';
import { monitorTool } from '../../../src/capabilities/shell/monitor.js';
import { bashTool } from '../../helpers/tools.js';
import { watchLoop } from '../../helpers/loop-stall.js';
import { pipelineHarness, runTool, type PipelineHarness } from '../../helpers/pipeline.js';

/** The longest stall a hostile pattern may cause here (seconds on the event loop before). */
const STALL_BOUND_MS = 400;
const SLACK_MS = 3000;

let h: PipelineHarness;
beforeEach(async () => {
  expect(findBwrap(), 'bubblewrap (bwrap) must be installed').not.toBeNull();
  h = await pipelineHarness([bashTool, monitorTool], { sandbox: 'bwrap' });
  h.setMode('bypassPermissions');
});
afterEach(async () => {
  await h.cleanup();
});

const run = (name: string, input: unknown) => runTool(h, name, input);
async function start(command: string): Promise<string> {
  const res = await run('Bash', { command, run_in_background: true });
  expect(res.isError).toBe(false);
  return /Started background task (task_[A-Za-z0-9_-]+)\./.exec(res.text)![1]!;
}

describe('Monitor: the until pattern is matched within a deadline', () => {
  it('a pattern that backtracks on a line ends the call with an error within the deadline; the next Monitor still matches', async () => {
    // The matching thread is started first: its start-up is not the pattern's time.
    expect(await new UntrustedRegex('^a').test('ab')).toBe(true);
    // 30 characters: minutes of backtracking for (a|a)* on the event loop. The lines read by a
    // Monitor that gave up are consumed, so the later line comes well after.
    const id = await start(`printf '%s\\n' ${'a'.repeat(30)}b; sleep 5; echo "ready at 8080"; sleep 20`);
    const watch = watchLoop();
    const t0 = performance.now();
    const r = await run('Monitor', { task_id: id, until: '^(a|a)*$', timeout: 20_000 });
    const ms = performance.now() - t0;
    const stallMs = watch.stop();
    console.info(`Monitor with a backtracking until: ${Math.round(ms)} ms to its result, longest event-loop stall ${Math.round(stallMs)} ms`);
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(new RegExp(`^Monitor stopped: the until pattern took longer than ${REGEX_DEADLINE_MS / 1000} s to match the task's output`));
    expect(ms).toBeLessThan(REGEX_DEADLINE_MS + SLACK_MS);
    expect(stallMs).toBeLessThan(STALL_BOUND_MS);
    // The task goes on, and an ordinary pattern (on the fresh thread) finds its later line.
    const seen = await run('Monitor', { task_id: id, until: 'ready at \\d+', timeout: 10_000 });
    expect(seen.text.split('\n')[0]).toBe('Matched: ready at 8080');
  });

  it('an ordinary pattern over a long output matches within the deadline, and finds the first matching line', async () => {
    const id = await start(`for i in $(seq 1 20000); do echo "line $i"; done; echo "done 42"; echo "done 43"; sleep 20`);
    const r = await run('Monitor', { task_id: id, until: '^done (\\d+)$', timeout: 15_000 });
    expect(r.isError).toBe(false);
    expect(r.text.split('\n')[0]).toBe('Matched: done 42');
  });
});
