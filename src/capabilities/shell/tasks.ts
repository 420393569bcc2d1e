// Background tasks (Bash `run_in_background`): processes that outlive the call that started
// them, each writing its output to a log file (memory stays flat), tied to their session
// and reaped when it closes. Ids are server-made.
import { ToolRefusal } from '../../tools/tool.js';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { IdFactory } from '../../ids.js';
import type { SandboxedProcess, SessionSandbox } from '../../sandbox/session-sandbox.js';

export const MAX_RUNNING_TASKS = 8;
/** TaskOutput returns at most this much new output per call; the rest stays for the next. */
export const TASK_OUTPUT_READ_BYTES = 1024 * 1024;

export type TaskStatus = 'running' | 'exited' | 'stopped' | 'failed';

export interface TaskInfo {
  id: string;
  command: string;
  status: TaskStatus;
  exitCode: number | null;
  signal: string | null;
  startedAt: string;
  endedAt: string | null;
  outputBytes: number;
  /** A session limit stopped it: which. */
  limit?: string;
}

export interface TaskEvents {
  started(info: TaskInfo, origin: { turnId: string; toolUseId: string }): void;
  completed(info: TaskInfo): void;
}

interface Task {
  info: TaskInfo;
  child: SandboxedProcess;
  logPath: string;
  log: fs.WriteStream;
  /** Bytes of the log already returned by TaskOutput. */
  readOffset: number;
  done: Promise<void>;
  waiters: Set<() => void>;
}

export class TaskRefusal extends ToolRefusal {}

/** The index of the first of `lines` that matches, or -1 (Monitor's `until`, matched off the event loop). */
export type LineMatcher = (lines: string[]) => Promise<number>;

export class BackgroundTasks {
  private readonly tasks = new Map<string, Task>();
  private closed = false;

  constructor(
    /** Private directory for this session's task logs. */
    private readonly dir: string,
    private readonly newId: IdFactory,
    private readonly clock: () => Date,
    private readonly events: TaskEvents,
  ) {}

  running(): number {
    return [...this.tasks.values()].filter((t) => t.info.status === 'running').length;
  }

  async start(sandbox: SessionSandbox, argv: string[], command: string, origin: { turnId: string; toolUseId: string }): Promise<TaskInfo> {
    if (this.closed) throw new TaskRefusal('the session is closing; no new background tasks');
    if (this.running() >= MAX_RUNNING_TASKS) {
      throw new TaskRefusal(`at most ${MAX_RUNNING_TASKS} background tasks run at once in a session; stop one first (TaskStop)`);
    }
    await fsp.mkdir(this.dir, { recursive: true, mode: 0o700 });
    const id = this.newId('task');
    const logPath = path.join(this.dir, `${id}.log`);
    // Opened now (not lazily by the stream), so readers find the file from the start.
    const log = fs.createWriteStream(logPath, { fd: fs.openSync(logPath, 'wx', 0o600) });
    let child: SandboxedProcess;
    try {
      // A refused connection is said in the task's own output, where its reader looks.
      const refused = (why: string) => log.writable && log.write(`[norma network] refused: ${why}\n`);
      child = await sandbox.spawn({ argv, origin: { toolUseId: origin.toolUseId, turnId: origin.turnId, kind: 'call', refused } });
    } catch (err) {
      log.destroy();
      await fsp.rm(logPath, { force: true });
      throw err;
    }
    const info: TaskInfo = {
      id,
      command,
      status: 'running',
      exitCode: null,
      signal: null,
      startedAt: this.clock().toISOString(),
      endedAt: null,
      outputBytes: 0,
    };
    const task: Task = { info, child, logPath, log, readOffset: 0, done: Promise.resolve(), waiters: new Set() };
    const count = (d: Buffer) => {
      info.outputBytes += d.length;
      for (const w of [...task.waiters]) w();
    };
    // pipe() applies backpressure: a task writing faster than the disk waits.
    child.stdout.on('data', count).pipe(log, { end: false });
    child.stderr.on('data', count).pipe(log, { end: false });
    task.done = child.exited.then(
      (exit) =>
        new Promise<void>((resolve) => {
          if (info.status === 'running') info.status = exit.error !== undefined ? 'failed' : 'exited';
          info.exitCode = exit.code;
          info.signal = exit.signal;
          if (exit.limit) info.limit = exit.limit;
          info.endedAt = this.clock().toISOString();
          log.end(() => {
            this.events.completed({ ...info });
            for (const w of [...task.waiters]) w();
            resolve();
          });
        }),
    );
    this.tasks.set(id, task);
    this.events.started({ ...info }, origin);
    return { ...info };
  }

  private get(id: string): Task {
    const t = this.tasks.get(id);
    if (!t) throw new TaskRefusal(`no background task ${id} in this session (TaskList shows them)`);
    return t;
  }

  list(): TaskInfo[] {
    return [...this.tasks.values()].map((t) => ({ ...t.info }));
  }

  /** New output since the last read (at most TASK_OUTPUT_READ_BYTES), optionally after waiting for the end. */
  async read(id: string, opts: { waitMs: number; signal: AbortSignal }): Promise<{ info: TaskInfo; text: string; more: boolean }> {
    const task = this.get(id);
    if (opts.waitMs > 0 && task.info.status === 'running') await this.waitFor(task, () => task.info.status !== 'running', opts.waitMs, opts.signal);
    return { info: { ...task.info }, ...(await this.readNew(task)) };
  }

  private async readNew(task: Task): Promise<{ text: string; more: boolean }> {
    const handle = await fsp.open(task.logPath, 'r');
    try {
      const size = (await handle.stat()).size;
      const length = Math.min(size - task.readOffset, TASK_OUTPUT_READ_BYTES);
      const buf = Buffer.alloc(Math.max(0, length));
      if (length > 0) await handle.read(buf, 0, length, task.readOffset);
      // Never cut a UTF-8 sequence: stop before an incomplete trailing character.
      let end = buf.length;
      if (end < size - task.readOffset) {
        let back = end - 1;
        while (back >= 0 && back > end - 4 && (buf[back]! & 0xc0) === 0x80) back--;
        if (back >= 0 && buf[back]! >= 0xc0) end = back;
      }
      task.readOffset += end;
      return { text: buf.subarray(0, end).toString('utf8'), more: task.readOffset < size };
    } finally {
      await handle.close();
    }
  }

  /**
   * Waits until a new complete output line matches `until` (or, without it, any new line),
   * the task ends, or `waitMs` passes. Lines read are consumed like TaskOutput's. `until` gets the
   * new lines (each cut to 4096 characters) and answers the index of the first match, or -1; a
   * failure of it (a pattern that took too long) ends the wait and is thrown.
   */
  async monitor(id: string, until: LineMatcher | null, opts: { waitMs: number; signal: AbortSignal }): Promise<{ info: TaskInfo; matched: string | null; timedOut: boolean }> {
    const task = this.get(id);
    let pending = '';
    let matched: string | null = null;
    let failure: { err: unknown } | null = null;
    const scan = async (): Promise<boolean> => {
      if (failure) return true;
      const { text } = await this.readNew(task);
      pending += text;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      const shown = lines.map((line) => (line.length > 4096 ? line.slice(0, 4096) : line));
      if (shown.length === 0) return false;
      if (until === null) {
        matched = shown[0]!;
        return true;
      }
      try {
        const i = await until(shown);
        if (i >= 0) matched = shown[i]!;
        return i >= 0;
      } catch (err) {
        failure = { err };
        return true;
      }
    };
    const done = (timedOut: boolean) => {
      if (failure) throw failure.err;
      return { info: { ...task.info }, matched, timedOut };
    };
    if (await scan()) return done(false);
    let timedOut = false;
    if (task.info.status === 'running') {
      timedOut = !(await this.waitFor(task, async () => (await scan()) || task.info.status !== 'running', opts.waitMs, opts.signal));
    }
    if (matched === null && !failure && task.info.status !== 'running') await scan();
    return done(timedOut);
  }

  /** Resolves true when `ready` holds, false when `ms` passed first or the signal aborted. */
  private waitFor(task: Task, ready: () => boolean | Promise<boolean>, ms: number, signal: AbortSignal): Promise<boolean> {
    return new Promise((resolve) => {
      let busy = false;
      let again = false;
      const finish = (v: boolean) => {
        clearTimeout(timer);
        task.waiters.delete(check);
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      };
      // Output that arrives while a check runs must not be missed: the check runs again.
      const check = () => {
        if (busy) {
          again = true;
          return;
        }
        busy = true;
        again = false;
        Promise.resolve(ready()).then(
          (ok) => {
            busy = false;
            if (ok) finish(true);
            else if (again) check();
          },
          () => finish(false),
        );
      };
      const onAbort = () => finish(false);
      const timer = setTimeout(() => finish(false), ms);
      signal.addEventListener('abort', onAbort, { once: true });
      task.waiters.add(check);
      check();
    });
  }

  async stop(id: string): Promise<TaskInfo> {
    const task = this.get(id);
    if (task.info.status === 'running') {
      task.info.status = 'stopped';
      task.child.kill();
      // The pipes close when the last process holding them is gone; if that takes longer
      // than a few seconds, stop reading them so the task still ends.
      const late = setTimeout(() => {
        task.child.stdout?.destroy();
        task.child.stderr?.destroy();
      }, 3000);
      await task.done;
      clearTimeout(late);
    }
    return { ...task.info };
  }

  /** Session close: every task's process tree is killed and the logs are removed. */
  async closeAll(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.tasks.keys()].map((id) => this.stop(id)));
    await fsp.rm(this.dir, { recursive: true, force: true });
  }
}
