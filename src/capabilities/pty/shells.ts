// Persistent PTY shells (node-pty) inside the same process sandbox as Bash. Each shell keeps
// the output since its last read in a bounded buffer (the oldest output is dropped, and
// counted, past 1 MiB), closes after being idle, and closes with its session. Ids are
// server-made. What is typed is checked by the same command analyser as Bash (see
// ShellWrite): the manager tracks the unfinished line the shell holds.
import { setTimeout as sleep } from 'node:timers/promises';
import * as pty from 'node-pty';
import { advance } from '../../permission/shell/continuation.js';
import { ToolRefusal } from '../../tools/tool.js';
import type { IdFactory } from '../../ids.js';
import type { ConnectionOrigin } from '../../sandbox/net-proxy.js';
import type { SessionSandbox } from '../../sandbox/session-sandbox.js';

export const MAX_SHELLS = 4;
export const SHELL_BUFFER_BYTES = 1024 * 1024;
export const SHELL_IDLE_MS = 30 * 60_000;

export class ShellRefusal extends ToolRefusal {}

interface Shell {
  id: string;
  proc: pty.IPty;
  /** Whose its connections are: the call that last typed in it (ShellWrite), or that opened it. */
  origin?: ConnectionOrigin;
  buffer: string;
  dropped: number;
  exited: { code: number; signal: number | null } | null;
  /** Text the shell holds: the unfinished line, and the lines of a command not complete yet (continuation.ts). */
  pendingLine: string;
  idleTimer: NodeJS.Timeout;
  waiters: Set<() => void>;
}

export interface ShellReadResult {
  text: string;
  dropped: number;
  exited: { code: number; signal: number | null } | null;
}

export class PtyShells {
  private readonly shells = new Map<string, Shell>();
  private readonly closedIdle = new Set<string>();
  private closed = false;
  /** Shells being started (they count against MAX_SHELLS already). */
  private starting = 0;

  constructor(
    private readonly newId: IdFactory,
    private readonly idleMs: number = SHELL_IDLE_MS,
  ) {}

  async open(sandbox: SessionSandbox, cols: number, rows: number, origin?: ConnectionOrigin): Promise<string> {
    if (this.closed) throw new ShellRefusal('the session is closing; no new shells');
    if ([...this.shells.values()].filter((s) => !s.exited).length + this.starting >= MAX_SHELLS) {
      throw new ShellRefusal(`at most ${MAX_SHELLS} shells are open at once in a session; close one first (ShellClose)`);
    }
    // --norc/--noprofile: no startup files; +H: no history expansion (`!!` would run lines the
    // analyser never saw). Readline reads no inputrc (INPUTRC=/dev/null in the base environment).
    const shellArgv = ['/bin/bash', '--norc', '--noprofile', '+H', '-i'];
    const env: Record<string, string> = { TERM: 'xterm-256color', HISTFILE: '/dev/null', PS1: '$ ' };
    let proc: pty.IPty;
    this.starting++;
    try {
      proc = (await sandbox.spawnPty({ argv: shellArgv, env, cols, rows, ...(origin ? { origin } : {}) })).proc;
    } finally {
      this.starting--;
    }
    if (this.closed) {
      try {
        process.kill(-proc.pid, 'SIGKILL');
      } catch {
        // already gone
      }
      throw new ShellRefusal('the session is closing; no new shells');
    }
    const id = this.newId('shell');
    const shell: Shell = {
      id,
      proc,
      ...(origin ? { origin } : {}),
      buffer: '',
      dropped: 0,
      exited: null,
      pendingLine: '',
      idleTimer: setTimeout(() => undefined, 0),
      waiters: new Set(),
    };
    proc.onData((data) => {
      shell.buffer += data;
      if (shell.buffer.length > SHELL_BUFFER_BYTES) {
        const cut = shell.buffer.length - SHELL_BUFFER_BYTES;
        shell.dropped += cut;
        shell.buffer = shell.buffer.slice(cut);
      }
      for (const w of [...shell.waiters]) w();
    });
    proc.onExit(({ exitCode, signal }) => {
      shell.exited = { code: exitCode, signal: signal ?? null };
      clearTimeout(shell.idleTimer);
      for (const w of [...shell.waiters]) w();
    });
    this.shells.set(id, shell);
    this.touch(shell);
    return id;
  }

  private touch(shell: Shell): void {
    clearTimeout(shell.idleTimer);
    shell.idleTimer = setTimeout(() => {
      this.closedIdle.add(shell.id);
      this.kill(shell);
      this.shells.delete(shell.id);
    }, this.idleMs);
    shell.idleTimer.unref();
  }

  private get(id: string): Shell {
    const shell = this.shells.get(id);
    if (!shell) {
      throw new ShellRefusal(
        this.closedIdle.has(id)
          ? `shell ${id} was closed after ${this.idleMs >= 60_000 ? `${Math.round(this.idleMs / 60_000)} minutes` : `${this.idleMs} ms`} without use; open a new one`
          : `no shell ${id} in this session (open one with ShellOpen)`,
      );
    }
    return shell;
  }

  /** What the shell holds: a write's input is added to it (see advance in continuation.ts). */
  pendingLine(id: string): string | null {
    return this.shells.get(id)?.pendingLine ?? null;
  }

  write(id: string, input: string, by?: { toolUseId: string; turnId: string }): void {
    const shell = this.get(id);
    if (shell.exited) throw new ShellRefusal(`shell ${id} has exited (code ${shell.exited.code}); open a new one`);
    if (by && shell.origin) {
      shell.origin.toolUseId = by.toolUseId;
      shell.origin.turnId = by.turnId;
    }
    shell.pendingLine = advance(shell.pendingLine, input).pending;
    shell.proc.write(input);
    this.touch(shell);
  }

  /** Output since the last read; waits up to `waitMs` for some when there is none yet. */
  async read(id: string, waitMs: number, signal: AbortSignal): Promise<ShellReadResult> {
    const shell = this.get(id);
    this.touch(shell);
    if (shell.buffer === '' && !shell.exited && waitMs > 0) {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          shell.waiters.delete(done);
          signal.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, waitMs);
        shell.waiters.add(done);
        signal.addEventListener('abort', done, { once: true });
      });
      // Let a burst of output finish arriving before returning it (on abort, return what is there).
      if (shell.buffer !== '') await sleep(30, undefined, { signal }).catch(() => undefined);
    }
    const result = { text: shell.buffer, dropped: shell.dropped, exited: shell.exited };
    shell.buffer = '';
    shell.dropped = 0;
    return result;
  }

  resize(id: string, cols: number, rows: number): void {
    const shell = this.get(id);
    if (!shell.exited) shell.proc.resize(cols, rows);
    this.touch(shell);
  }

  close(id: string): void {
    const shell = this.get(id);
    this.kill(shell);
    this.shells.delete(id);
  }

  private kill(shell: Shell): void {
    clearTimeout(shell.idleTimer);
    if (shell.exited) return;
    try {
      // The pty's child leads its own session and group: the group goes, and under bwrap the
      // pid namespace with everything inside.
      process.kill(-shell.proc.pid, 'SIGKILL');
    } catch {
      try {
        shell.proc.kill('SIGKILL');
      } catch {
        // already gone
      }
    }
  }

  closeAll(): void {
    this.closed = true;
    for (const shell of this.shells.values()) this.kill(shell);
    this.shells.clear();
  }
}

/** Removes ANSI escape sequences (CSI, OSC, single-character escapes). */
export function stripAnsi(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]/g, '');
}
