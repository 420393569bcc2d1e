// Background tasks: start, read, monitor, list, stop, limits and reaping — in the real sandbox.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findBwrap } from '../../../src/sandbox/process.js';
import { bashTool } from '../../helpers/tools.js';
import { monitorTool } from '../../../src/capabilities/shell/monitor.js';
import { taskListTool } from '../../../src/capabilities/shell/task-list.js';
import { taskOutputTool } from '../../../src/capabilities/shell/task-output.js';
import { taskStopTool } from '../../../src/capabilities/shell/task-stop.js';
import { MAX_RUNNING_TASKS } from '../../../src/capabilities/shell/tasks.js';
import { pipelineHarness, runTool, type PipelineHarness } from '../../helpers/pipeline.js';
import { sleepers, waitUntil } from '../../helpers/processes.js';

let h: PipelineHarness;
beforeEach(async () => {
  const bwrapPath = findBwrap();
  expect(bwrapPath, 'bubblewrap (bwrap) must be installed').not.toBeNull();
  h = await pipelineHarness([bashTool, taskOutputTool, taskStopTool, taskListTool, monitorTool], { sandbox: 'bwrap' });
  h.setMode('bypassPermissions');
});
afterEach(async () => {
  await h.cleanup();
});

const run = (name: string, input: unknown) => runTool(h, name, input);
async function start(command: string): Promise<string> {
  const res = await run('Bash', { command, run_in_background: true });
  expect(res.isError).toBe(false);
  const id = /Started background task (task_[A-Za-z0-9_-]+)\./.exec(res.text)?.[1];
  expect(id).toBeDefined();
  return id!;
}
describe('background tasks', () => {
  it('returns at once, then TaskOutput gives new output and the exit status', async () => {
    const id = await start('echo one; sleep 0.2; echo two; exit 4');
    const done = await run('TaskOutput', { task_id: id, block: true, timeout: 5000 });
    expect(done.text).toBe(`one\ntwo\nTask ${id} exited with code 4 (8 bytes of output).`);
    // Output already read is not returned again.
    expect((await run('TaskOutput', { task_id: id })).text).toBe(`(no new output)\nTask ${id} exited with code 4 (8 bytes of output).`);
  });

  it('Monitor waits for a matching line; lines it read are consumed', async () => {
    const id = await start('echo starting; sleep 0.2; echo "listening on port 8080"; sleep 5');
    const seen = await run('Monitor', { task_id: id, until: 'listening on port \\d+', timeout: 5000 });
    expect(seen.text).toBe(`Matched: listening on port 8080\nTask ${id} is running (${'starting\nlistening on port 8080\n'.length} bytes of output so far).`);
    const none = await run('Monitor', { task_id: id, until: 'never', timeout: 200 });
    expect(none.text.split('\n')[0]).toBe('No matching line before the timeout.');
    expect((await run('Monitor', { task_id: id, until: '(' })).text).toMatch(/^until is not a valid regular expression/);
  });

  it('TaskStop kills the whole tree; TaskList shows every task', async () => {
    const marker = `${Math.floor(Math.random() * 1e6)}.6161`;
    const id = await start(`sleep ${marker} & sleep ${marker}`);
    await waitUntil(() => sleepers(marker), (n) => n >= 2);
    expect(await sleepers(marker)).toBe(2);
    expect((await run('TaskList', {})).text).toMatch(new RegExp(`^Task ${id} is running .* Command: sleep ${marker.replace('.', '\\.')} & sleep`));
    expect((await run('TaskStop', { task_id: id })).text).toBe(`Task ${id} was stopped (0 bytes of output).`);
    await waitUntil(() => sleepers(marker), (n) => n === 0, 50);
    expect(await sleepers(marker)).toBe(0);
  });

  it('refuses unknown task ids and more than the running limit', async () => {
    expect(await run('TaskOutput', { task_id: 'task_nope' })).toEqual({ isError: true, text: 'no background task task_nope in this session (TaskList shows them)' });
    expect((await run('TaskOutput', { task_id: '../etc' })).text).toMatch(/Invalid input for TaskOutput: input\.task_id: must match pattern/);
    for (let i = 0; i < MAX_RUNNING_TASKS; i++) await start('sleep 30');
    const over = await run('Bash', { command: 'sleep 30', run_in_background: true });
    expect(over).toEqual({ isError: true, text: `at most ${MAX_RUNNING_TASKS} background tasks run at once in a session; stop one first (TaskStop)` });
  });

  it('closing reaps every task, leaving no process behind', async () => {
    const marker = `${Math.floor(Math.random() * 1e6)}.7171`;
    await start(`sleep ${marker}`);
    await start(`sleep ${marker}`);
    await waitUntil(() => sleepers(marker), (n) => n >= 2);
    expect(await sleepers(marker)).toBe(2);
    await h.tasks.closeAll();
    await waitUntil(() => sleepers(marker), (n) => n === 0, 50);
    expect(await sleepers(marker)).toBe(0);
    expect((await run('Bash', { command: 'true', run_in_background: true })).text).toBe('the session is closing; no new background tasks');
  });
});
