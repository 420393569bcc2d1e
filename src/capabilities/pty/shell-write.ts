// ShellWrite: types into a PTY shell. Every command the input completes goes through the same
// command analysis as Bash (SPEC §9.7): read-only commands run, others are asked about, and what
// the analyser cannot see (control keys, history, editing) is asked about too. A command the
// shell holds over several lines (a here-document, a quote, `if` … `fi`, a trailing backslash)
// is analysed as a whole once the line that completes it is typed (shell/continuation.ts).
import { Type, type Static } from '@sinclair/typebox';
import { advance, analyzeCommand, type Advance } from '../../permission/shell.js';
import type { RuleSubject } from '../../permission/subject.js';
import { defineTool, textOutput, type ToolPermissionCheck } from '../../tools/tool.js';
import type { PtyDeps } from './deps.js';
import { SHELL_WRITE_DESCRIPTION } from './shell-write.description.js';

const Input = Type.Object(
  {
    shell_id: Type.String({ pattern: '^shell_[A-Za-z0-9_-]{1,58}$' }),
    input: Type.String({ minLength: 1, maxLength: 100_000, description: 'Text to type; "\\r" (or "\\n") presses Enter' }),
  },
  { additionalProperties: false },
);
type Input = Static<typeof Input>;

/** What this input makes the shell run now (null: unknown shell). */
function advanceShell(pending: string | null, typed: string): Advance | null {
  return pending === null ? null : advance(pending, typed);
}

export const shellWriteTool = defineTool<Input, PtyDeps>({
  name: 'ShellWrite',
  description: SHELL_WRITE_DESCRIPTION,
  inputSchema: Input,
  isReadOnly: () => false,
  isConcurrencySafe: () => false,
  requiresApproval: () => true,
  async checkPermissions(input, _ctx, deps): Promise<ToolPermissionCheck> {
    const a = advanceShell(deps.shells.pendingLine(input.shell_id), input.input);
    if (a === null) return { behavior: 'passthrough' }; // the call reports the unknown shell
    if (a.unknown !== null) return { behavior: 'ask', reason: a.unknown };
    if (a.run === '') {
      return { behavior: 'allow', reason: a.pending.includes('\n') ? 'the shell holds an unfinished command: it runs, and is checked, when complete' : 'no command line is completed' };
    }
    const analysis = analyzeCommand(a.run);
    if (!analysis.ok) return { behavior: 'ask', reason: `the command could not be fully analysed (${analysis.reason})` };
    return analysis.readOnly ? { behavior: 'allow', reason: 'every command line is read-only' } : { behavior: 'passthrough' };
  },
  // Bash(...) rules apply to every command this input completes (SPEC §9.7).
  permissionSubject(input, _ctx, deps): RuleSubject {
    const a = advanceShell(deps.shells.pendingLine(input.shell_id), input.input);
    if (a === null) return { kind: 'none' };
    if (a.unknown !== null) return { kind: 'command', analysis: { ok: false, reason: a.unknown } };
    return { kind: 'command', analysis: analyzeCommand(a.run) };
  },
  async call(input, ctx, deps) {
    deps.shells.write(input.shell_id, input.input, { toolUseId: ctx.toolUseId, turnId: ctx.turnId });
    return textOutput(`Typed ${input.input.length} characters into ${input.shell_id}.`);
  },
});
