// What the PTY tools share for a session: its shells, started in its sandbox.
import type { SessionSandbox } from '../../sandbox/session-sandbox.js';
import type { PtyShells } from './shells.js';

export interface PtyDeps {
  sandbox: SessionSandbox;
  shells: PtyShells;
}
