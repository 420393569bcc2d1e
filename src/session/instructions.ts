// Instruction files at the workspace root (AGENTS.md, NORMA.md, CLAUDE.md) join the system
// prompt of prompt turns. They are read through the path sandbox (a link out of the workspace,
// a FIFO or a device is refused, never followed or opened), each up to a size limit, at every
// prompt turn (the model may have edited them); the session lists what was loaded with digests.
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { InstructionFile } from '../contract/schemas.js';
import { PathRefusal, type Workspace } from '../sandbox/paths.js';

export const INSTRUCTION_FILES = ['AGENTS.md', 'NORMA.md', 'CLAUDE.md'] as const;
export const MAX_INSTRUCTION_BYTES = 64 * 1024;

export interface LoadedInstructions {
  files: InstructionFile[];
  /** The text for the system prompt; empty when there are none. */
  text: string;
  /** Files that exist but could not be used (for the session's warnings). */
  problems: string[];
}

export async function loadInstructions(workspace: Workspace): Promise<LoadedInstructions> {
  const files: InstructionFile[] = [];
  const parts: string[] = [];
  const problems: string[] = [];
  for (const name of INSTRUCTION_FILES) {
    let opened;
    try {
      opened = await workspace.openForRead(path.join(workspace.root, name));
    } catch (err) {
      if (err instanceof PathRefusal && err.rule === 'does not exist') continue;
      problems.push(`instruction file ${name} was not loaded: ${err instanceof PathRefusal ? err.rule : err instanceof Error ? err.message : String(err)}`);
      continue;
    }
    try {
      if (opened.size > MAX_INSTRUCTION_BYTES) {
        problems.push(`instruction file ${name} was not loaded: ${opened.size} bytes is more than the ${MAX_INSTRUCTION_BYTES} allowed`);
        continue;
      }
      const bytes = await opened.handle.readFile();
      if (bytes.length > MAX_INSTRUCTION_BYTES) {
        problems.push(`instruction file ${name} was not loaded: it grew past ${MAX_INSTRUCTION_BYTES} bytes while being read`);
        continue;
      }
      const text = bytes.toString('utf8');
      files.push({ file: name, bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
      if (text.trim() !== '') parts.push(`Instructions from ${name} at the workspace root:\n\n${text.trim()}`);
    } finally {
      await opened.handle.close().catch(() => undefined);
    }
  }
  return { files, text: parts.join('\n\n'), problems };
}

/** The system prompt of a prompt turn: the session's own, then the instruction files. */
export function systemPrompt(own: string | null | undefined, instructions: string): string | undefined {
  const parts = [own ?? '', instructions].filter((p) => p.trim() !== '');
  return parts.length > 0 ? parts.join('\n\n') : undefined;
}
