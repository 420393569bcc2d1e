// ShellWrite: types into a PTY shell. Every command line it completes goes through the same
// command analysis as Bash (SPEC §9.7): read-only lines run, others are asked about, and what
// the analyser cannot see (control keys, history, editing) is asked about too.
import { Type, type Static } from '@sinclair/typebox';
import { analyzeCommand, type CommandAnalysis, type Redirect, type SimpleCommand } from '../../permission/shell.js';
import type { RuleSubject } from '../../permission/subject.js';
import { buildTool, textOutput, type ToolPermissionCheck } from '../tool.js';

const Input = Type.Object(
  {
    shell_id: Type.String({ pattern: '^shell_[A-Za-z0-9_-]{1,58}$' }),
    input: Type.String({ minLength: 1, maxLength: 100_000, description: 'Text to type; "\\r" (or "\\n") presses Enter' }),
  },
  { additionalProperties: false },
);
type Input = Static<typeof Input>;

// Anything but printable text and line ends: Ctrl keys, escapes (arrows recall history), tab
// completion, backspace. They change the line the shell will run in ways not visible here.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u0009\u000b\u000c\u000e-\u001f\u007f]/;

/** The command lines this input completes (null: unknown shell; 'control': control keys present). */
function completedLines(pending: string | null, typed: string): string[] | null | 'control' {
  if (pending === null) return null;
  const text = pending + typed;
  if (CONTROL.test(text)) return 'control';
  const lines = text.split(/\r\n|\r|\n/);
  lines.pop(); // the unfinished rest only runs at a later Enter, and is checked then
  return lines;
}

/** One analysis for several lines: every command and redirect of all of them. */
function linesAnalysis(lines: string[]): CommandAnalysis {
  const commands: SimpleCommand[] = [];
  const redirects: Redirect[] = [];
  let readOnly = true;
  for (const line of lines) {
    const a = analyzeCommand(line);
    if (!a.ok) return a;
    commands.push(...a.commands);
    redirects.push(...a.redirects);
    readOnly &&= a.readOnly;
  }
  return { ok: true, commands, redirects, readOnly };
}

export const shellWriteTool = buildTool<Input>({
  name: 'ShellWrite',
  description:
    'Types text into a shell opened with ShellOpen. End a command with "\\r". Command lines are checked like Bash ' +
    'commands before they reach the shell. Read the result with ShellRead.',
  inputSchema: Input,
  isReadOnly: () => false,
  isConcurrencySafe: () => false,
  requiresApproval: () => true,
  async checkPermissions(input, ctx): Promise<ToolPermissionCheck> {
    const lines = completedLines(ctx.shells.pendingLine(input.shell_id), input.input);
    if (lines === null) return { behavior: 'passthrough' }; // the call reports the unknown shell
    if (lines === 'control') {
      return { behavior: 'ask', reason: 'the input contains control keys (editing, history or completion) whose effect on the command line cannot be checked' };
    }
    if (lines.length === 0) return { behavior: 'allow', reason: 'no command line is completed' };
    const a = linesAnalysis(lines);
    if (!a.ok) return { behavior: 'ask', reason: `the command could not be fully analysed (${a.reason})` };
    return a.readOnly ? { behavior: 'allow', reason: 'every command line is read-only' } : { behavior: 'passthrough' };
  },
  // Bash(...) rules apply to every command line this input completes (SPEC §9.7).
  permissionSubject(input, ctx): RuleSubject {
    const lines = completedLines(ctx.shells.pendingLine(input.shell_id), input.input);
    if (lines === null) return { kind: 'none' };
    if (lines === 'control') return { kind: 'command', analysis: { ok: false, reason: 'control keys' } };
    return { kind: 'command', analysis: linesAnalysis(lines) };
  },
  async call(input, ctx) {
    ctx.shells.write(input.shell_id, input.input);
    return textOutput(`Typed ${input.input.length} characters into ${input.shell_id}.`);
  },
});
