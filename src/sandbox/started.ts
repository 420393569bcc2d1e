// A process the sandbox started, as the rest of the sandbox sees it (process.ts starts them).
import type { Readable, Writable } from 'node:stream';

/** What the sandbox uses of execa's subprocess (a ChildProcess that is also the promise of its result). */
export interface SandboxChild extends PromiseLike<{ exitCode?: number; signal?: string; failed: boolean; message: string; originalMessage?: string }> {
  readonly pid?: number;
  readonly exitCode: number | null;
  readonly signalCode: NodeJS.Signals | null;
  readonly stdin: Writable | null;
  readonly stdout: Readable | null;
  readonly stderr: Readable | null;
  readonly stdio: readonly unknown[];
  kill(signal?: NodeJS.Signals): boolean;
}

/** A started process: execa's subprocess plus the sandbox init's pid once bwrap reports it. */
export interface StartedProcess {
  child: SandboxChild;
  /** The pid of the sandbox's init (outside numbering), once known. */
  initPid(): number | undefined;
}
