// What the file tools keep and use for a session: the files it has read (Write and Edit require a
// read first, and refuse a file changed since), the rules that hide paths from listings and
// searches, and the sandbox ripgrep runs in.
import type { SessionSandbox } from '../../sandbox/session-sandbox.js';
import type { FileReadState } from './read-state.js';

export interface FileDeps {
  readState: FileReadState;
  /** The deny (or ask) rule text that forbids `tool` reading this real path, or null. */
  readDenied(tool: string, absReal: string, isDir: boolean): string | null;
  sandbox: SessionSandbox;
}
