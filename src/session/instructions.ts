// Instruction files at the workspace root (AGENTS.md, NORMA.md, CLAUDE.md) join the system
// prompt of prompt turns. The server reads them on its own, nobody named them: a link is never
// followed, wherever it points (another tenant's workspace, /etc, or a file of the workspace
// itself — the link could be re-pointed between the check and the open), a file with more than
// one hard link is refused, a FIFO or a device is never opened, and at most the size limit is
// read (src/sandbox/no-follow.ts). They are read at every prompt turn (the model may have edited
// them); the session lists what was loaded with digests, and says why a present file was not.
import { createHash } from 'node:crypto';
import type { InstructionFile } from '../contract/schemas.js';
import { PathRefusal, type Workspace } from '../sandbox/paths.js';
import { NoFollowMissing, NoFollowTooLarge, readNoFollow } from '../sandbox/no-follow.js';

export const INSTRUCTION_FILES = ['AGENTS.md', 'NORMA.md', 'CLAUDE.md'] as const;
export const MAX_INSTRUCTION_BYTES = 64 * 1024;

export interface LoadedInstructions {
  files: InstructionFile[];
  /** The text for the system prompt; empty when there are none. */
  text: string;
  /** Files that exist but could not be used (for the session's warnings). */
  problems: string[];
}

export async function loadInstructions(workspace: Pick<Workspace, 'root'>): Promise<LoadedInstructions> {
  const files: InstructionFile[] = [];
  const parts: string[] = [];
  const problems: string[] = [];
  for (const name of INSTRUCTION_FILES) {
    let bytes: Buffer;
    try {
      ({ bytes } = await readNoFollow(workspace.root, [name], { maxBytes: MAX_INSTRUCTION_BYTES, singleLink: true }));
    } catch (err) {
      if (err instanceof NoFollowMissing) continue;
      const why =
        err instanceof NoFollowTooLarge
          ? `it has more than the ${MAX_INSTRUCTION_BYTES} bytes allowed`
          : err instanceof PathRefusal
            ? err.rule
            : err instanceof Error
              ? err.message
              : String(err);
      problems.push(`instruction file ${name} was not loaded: ${why}`);
      continue;
    }
    const text = bytes.toString('utf8');
    files.push({ file: name, bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
    if (text.trim() !== '') parts.push(`Instructions from ${name} at the workspace root:\n\n${text.trim()}`);
  }
  return { files, text: parts.join('\n\n'), problems };
}

/** The system prompt of a prompt turn: the session's own, then the instruction files. */
export function systemPrompt(own: string | null | undefined, instructions: string): string | undefined {
  const parts = [own ?? '', instructions].filter((p) => p.trim() !== '');
  return parts.length > 0 ? parts.join('\n\n') : undefined;
}
