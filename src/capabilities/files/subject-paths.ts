// The rule subjects of the file tools: the path a call reads or changes, resolved for matching
// `Read(...)` / `Edit(...)` rules (symlinks resolved, see permission/subject.ts).
import fs from 'node:fs/promises';
import { resolveSubjectPath, type RuleSubject } from '../../permission/subject.js';
import type { ToolContext } from '../../tools/tool.js';

export async function fileSubject(ctx: ToolContext, access: 'read' | 'edit', userPath: string, isDir: boolean | 'stat'): Promise<RuleSubject> {
  let p = await resolveSubjectPath(ctx.workspace.root, userPath, isDir === true);
  if (isDir === 'stat') {
    const st = await fs.stat(p.real).catch(() => null);
    p = { ...p, isDir: st?.isDirectory() ?? false };
  }
  return { kind: 'paths', access, paths: [p] };
}

/** Where a Glob call searches: its `path`, or for an absolute pattern the literal directories it starts with. */
export function globRoot(pattern: string, userPath: string | undefined): string {
  if (!pattern.startsWith('/')) return userPath ?? '.';
  const segs = pattern.split('/');
  const literal: string[] = [];
  for (const seg of segs.slice(0, -1)) {
    if (/[*?[\]{}\\]/.test(seg)) break;
    literal.push(seg);
  }
  return literal.join('/') || '/';
}
