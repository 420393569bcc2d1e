// The PTY tools (ShellOpen, ShellWrite, ShellRead, ShellResize, ShellClose): one PtyShells per
// session; closing the session closes its shells.
import type { Capability } from '../../tools/capability.js';
import type { PtyDeps } from './deps.js';
import { shellCloseTool } from './shell-close.js';
import { shellOpenTool } from './shell-open.js';
import { shellReadTool } from './shell-read.js';
import { shellResizeTool } from './shell-resize.js';
import { shellWriteTool } from './shell-write.js';
import { PtyShells } from './shells.js';

export const ptyCapability: Capability<PtyDeps> = {
  group: 'pty',
  tools: [shellOpenTool, shellWriteTool, shellReadTool, shellResizeTool, shellCloseTool],
  install: (s) => {
    const shells = new PtyShells(s.newId);
    return { deps: { sandbox: s.sandbox, shells }, close: () => shells.closeAll() };
  },
};
