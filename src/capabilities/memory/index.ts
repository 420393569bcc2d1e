// The Memory tool: the session's memory store (`/memories`), private to it or shared by the
// sessions that name one store. The directory is made on the first write.
import type { Capability } from '../../tools/capability.js';
import { MemoryFiles } from './files.js';
import { memoryTool, type MemoryDeps } from './memory.js';

export const memoryCapability: Capability<MemoryDeps> = {
  group: 'instructions',
  tools: [memoryTool],
  install: (s) => ({ deps: { files: new MemoryFiles(s.memoryDir) } }),
};
