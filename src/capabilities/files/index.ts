// The file tools (SPEC §6): Read, Write, Edit, MultiEdit, LS, Glob, Grep. One FileReadState per
// session; Grep's engine (ripgrep or the built-in search) is chosen once, by the composition root.
import type { Capability } from '../../tools/capability.js';
import type { FileDeps } from './deps.js';
import { editTool } from './edit.js';
import { globTool } from './glob.js';
import { createGrepTool } from './grep.js';
import { lsTool } from './ls.js';
import { multiEditTool } from './multi-edit.js';
import { readTool } from './read.js';
import { FileReadState } from './read-state.js';
import { writeTool } from './write.js';

export function filesCapability(opts: { rgPath: string | null }): Capability<FileDeps> {
  return {
    group: 'file',
    tools: [readTool, writeTool, editTool, multiEditTool, lsTool, globTool, createGrepTool({ rgPath: opts.rgPath })],
    install: (s) => ({ deps: { readState: new FileReadState(), readDenied: s.readDenied, sandbox: s.sandbox } }),
  };
}
