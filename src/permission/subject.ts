// What a permission rule with a specifier is matched against: a tool declares the subject of a
// call (the commands it would run, the paths it would read or change, the URL it would fetch)
// and the rule engine never looks inside a tool's input itself.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { CommandAnalysis } from './shell.js';

export interface SubjectPath {
  /** Absolute path as written (normalised; no symlink resolved). */
  lexical: string;
  /** Absolute path with every symlink of its existing part resolved: what rules allow by. */
  real: string;
  /** The call works on a directory (a search or listing root), not a single file. */
  isDir: boolean;
}

export type RuleSubject =
  | { kind: 'none' }
  /** Every simple command a command line would run (Bash, ShellWrite). */
  | { kind: 'command'; analysis: CommandAnalysis }
  /** Files or directories read (`Read(...)` rules) or changed (`Edit(...)` rules). */
  | { kind: 'paths'; access: 'read' | 'edit'; paths: SubjectPath[] }
  /** One URL fetched (`WebFetch(domain:...)` rules), or one connection of a sandboxed process (`Network(domain:...)`). */
  | { kind: 'url'; url: string; host: string; port?: number }
  /** One named thing the call uses (`Skill(name)` rules). */
  | { kind: 'label'; label: string };

export const NO_SUBJECT: RuleSubject = { kind: 'none' };

/**
 * Resolves a path a tool was given for rule matching: relative paths are taken from the
 * workspace root; the deepest existing ancestor is resolved with realpath and the rest is
 * appended, so a symlink anywhere on the existing part cannot dodge a rule. This is for
 * matching intent only: the path sandbox still enforces the boundary with descriptors.
 */
export async function resolveSubjectPath(root: string, userPath: string, isDir: boolean): Promise<SubjectPath> {
  const lexical = path.isAbsolute(userPath) ? path.normalize(userPath) : path.resolve(root, userPath);
  const trimmed = lexical.length > 1 && lexical.endsWith('/') ? lexical.slice(0, -1) : lexical;
  return { lexical: trimmed, real: await realOfExistingPart(trimmed), isDir };
}

async function realOfExistingPart(abs: string): Promise<string> {
  const rest: string[] = [];
  let current = abs;
  for (let i = 0; i < 4096; i++) {
    try {
      const real = await fs.realpath(current);
      return rest.length === 0 ? real : path.join(real, ...rest.reverse());
    } catch {
      const parent = path.dirname(current);
      if (parent === current) break;
      rest.push(path.basename(current));
      current = parent;
    }
  }
  return abs;
}

/** The host a URL names, lower-cased, without a trailing dot or IPv6 brackets; null if unparsable. */
export function urlHost(url: string): string | null {
  try {
    const host = new URL(url).hostname.toLowerCase();
    const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
    return bare.endsWith('.') ? bare.slice(0, -1) : bare;
  } catch {
    return null;
  }
}
