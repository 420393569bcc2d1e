// What a PTY shell runs as text is typed: a command held over several lines is judged as a whole
// when the line that completes it arrives, never line by line.
import { describe, expect, it } from 'vitest';
import { evaluateCall } from '../../src/permission/evaluate.js';
import { parseRules } from '../../src/permission/rules.js';
import { advance, MAX_PENDING } from '../../src/permission/shell.js';
import { incomplete, UNKNOWN } from '../../src/permission/shell/continuation.js';
import { shellWriteTool } from '../../src/capabilities/pty/shell-write.js';
import type { ToolContext } from '../../src/tools/tool.js';

/** Types each write in turn; returns what each one made the shell run. */
function typeAll(writes: string[]): { runs: string[]; pending: string; unknown: (string | null)[] } {
  let pending = '';
  const runs: string[] = [];
  const unknown: (string | null)[] = [];
  for (const w of writes) {
    const a = advance(pending, w);
    runs.push(a.run);
    unknown.push(a.unknown);
    pending = a.pending;
  }
  return { runs, pending, unknown };
}

describe('incomplete: does bash wait for another line?', () => {
  const cases: [string, boolean][] = [
    ['ls\n', false],
    ['cat <<EOF\nfoo $(rm x)\n', true],
    ["cat <<'EOF'\n$(x)\n", true],
    ['cat <<-EOF\n\tx\n\tEOF\n', false],
    ['cat <<EOF; ls\n', true],
    ['cat <<A <<B\nx\nA\n', true],
    ['find . -name x \\\n', true],
    ['sort \\\n', true],
    ['x=1 \\\n', true],
    ['ls # a comment \\\n', false],
    ['ls \\\\\n', false],
    ['echo "abc\n', true],
    ["echo 'a\n", true],
    ["echo $'a\n", true],
    ['echo `ls\n', true],
    ['echo $(ls\n', true],
    ['echo ${x\n', true],
    ['cat <(ls\n', true],
    ['if true; then\n', true],
    ['if true\n', true],
    ['while true\n', true],
    ['for x in a; do\n', true],
    ['case x in\n', true],
    ['{\n', true],
    ['(\n', true],
    ['f() {\n', true],
    ['[[ -f x\n', true],
    ['ls |\n', true],
    ['ls &&\n', true],
    ['ls ||\n', true],
    // syntax errors: bash reports them and drops the line, so nothing is held
    ['if true; then fi\n', false],
    ['for x in a; do done\n', false],
    ['( )\n', false],
    ['ls && ; x\n', false],
    ['ls ) ; echo "\n', false],
    // extended globs are syntax errors unless extglob is on: not certain, so not held
    ['ls @(a\n', false],
  ];
  it.each(cases)('%j → %s', (text, expected) => {
    expect(incomplete(text)).toBe(expected);
  });
});

describe('advance: held commands are analysed when complete', () => {
  it('a here-document runs with its body, at its delimiter line', () => {
    const t = typeAll(['cat <<EOF\r', 'echo $(touch X)\r', 'EOF\r']);
    expect(t.runs).toEqual(['', '', 'cat <<EOF\necho $(touch X)\nEOF\n']);
    expect(t.pending).toBe('');
  });

  it('a trailing backslash joins the next line', () => {
    expect(typeAll(['find . -name x \\\r', '-delete\r']).runs).toEqual(['', 'find . -name x \\\n-delete\n']);
    expect(typeAll(['sort in \\\r', '-o out\r']).runs).toEqual(['', 'sort in \\\n-o out\n']);
  });

  it('open quotes, compound commands and operators at the line end hold the text', () => {
    expect(typeAll(['ls; echo "a\r', '$(rm x)"\r']).runs).toEqual(['', 'ls; echo "a\n$(rm x)"\n']);
    expect(typeAll(['if true; then\r', 'rm x\r', 'fi\r']).runs).toEqual(['', '', 'if true; then\nrm x\nfi\n']);
    expect(typeAll(['for f in *; do\r', 'rm "$f"\r', 'done\r']).runs.at(-1)).toBe('for f in *; do\nrm "$f"\ndone\n');
    expect(typeAll(['{ ls\r', 'rm x; }\r']).runs).toEqual(['', '{ ls\nrm x; }\n']);
    expect(typeAll(['( ls\r', 'rm x )\r']).runs).toEqual(['', '( ls\nrm x )\n']);
    expect(typeAll(['ls |\r', 'sh\r']).runs).toEqual(['', 'ls |\nsh\n']);
    expect(typeAll(['true &&\r', 'rm x\r']).runs).toEqual(['', 'true &&\nrm x\n']);
    expect(typeAll(['false ||\r', 'rm x\r']).runs).toEqual(['', 'false ||\nrm x\n']);
  });

  it('complete commands before a held one run at once; the rest is held', () => {
    const t = typeAll(['ls\rcat <<EOF\rfoo\r', 'EOF\r']);
    expect(t.runs).toEqual(['ls\n', 'cat <<EOF\nfoo\nEOF\n']);
  });

  it('text without a line end runs nothing and stays held', () => {
    expect(typeAll(['rm -rf ', 'important', '\r']).runs).toEqual(['', '', 'rm -rf important\n']);
  });

  it('\\r\\n is two line ends (Enter twice), so it does not continue a backslash line', () => {
    expect(advance('', 'ls \\\r\nrm x\r').run).toBe('ls \\\n\nrm x\n');
  });

  it('control keys are not judged; the line state is unknown until Ctrl-C', () => {
    const t = typeAll(['cat <<EOF\r', '\u000c', "echo '$(touch X)'\r", 'EOF\r', '\u0003', 'ls\r']);
    expect(t.unknown.map((u) => u !== null)).toEqual([false, true, true, true, true, false]);
    expect(t.runs.at(-1)).toBe('ls\n');
    expect(advance('', '\u001b[A\r').pending).toBe(UNKNOWN);
  });

  it('past MAX_PENDING characters of unfinished input the state is unknown', () => {
    const held = `cat <<EOF\n${'x\n'.repeat(MAX_PENDING / 2)}`;
    const a = advance('', held);
    expect(a.unknown).toMatch(/more than 100000 characters/);
    expect(advance(a.pending, 'EOF\r').unknown).not.toBeNull();
  });
});

describe('ShellWrite judges the completed command, with the rules', () => {
  const ctx = (): ToolContext => ({ workspace: { root: '/ws' } }) as unknown as ToolContext;
  const shellWrite = (pending: string) => shellWriteTool.bind({ shells: { pendingLine: () => pending } } as never);
  const rules = (allow: string[] = [], deny: string[] = []) => ({
    allow: parseRules('allow', allow).rules,
    deny: parseRules('deny', deny).rules,
    ask: [],
  });
  const decide = (pending: string, input: string, r = rules()) =>
    evaluateCall(shellWrite(pending), { shell_id: 'shell_1', input }, ctx(), { mode: 'default', rules: r });

  const cases: { pending: string; input: string; expect: 'allow' | 'ask' | 'deny'; rules?: ReturnType<typeof rules> }[] = [
    // lines that do not complete the command run nothing yet
    { pending: '', input: 'cat <<EOF\r', expect: 'allow' },
    { pending: 'cat <<EOF\n', input: 'echo $(touch X)\r', expect: 'allow' },
    // the line that completes it brings the whole command to judgement
    { pending: 'cat <<EOF\necho $(touch X)\n', input: 'EOF\r', expect: 'ask' },
    { pending: 'cat <<EOF\nhello\n', input: 'EOF\r', expect: 'allow' },
    { pending: 'find . -name x \\\n', input: '-delete\r', expect: 'ask' },
    { pending: 'find . -name x \\\n', input: '-print\r', expect: 'allow' },
    { pending: 'sort x \\\n', input: '-o out\r', expect: 'ask' },
    { pending: 'if true; then\nls\n', input: 'fi\r', expect: 'allow' },
    { pending: 'if true; then\nrm -rf x\n', input: 'fi\r', expect: 'ask' },
    { pending: 'if true; then\nrm -rf x\n', input: 'fi\r', expect: 'deny', rules: rules([], ['Bash(rm *)']) },
    { pending: 'ls &&\n', input: 'rm x\r', expect: 'deny', rules: rules(['Bash(ls *)'], ['Bash(rm *)']) },
    { pending: "awk '{print}\n", input: "system(\"x\")}'\r", expect: 'ask', rules: rules(['Bash(awk *)']) },
    // control keys
    { pending: 'cat <<EOF\n', input: '\u000c', expect: 'ask' },
    { pending: UNKNOWN, input: 'ls\r', expect: 'ask' },
  ];
  it.each(cases)('$pending + $input → $expect', async (c) => {
    const d = await decide(c.pending, c.input, c.rules);
    expect(d.behavior).toBe(c.expect);
  });
});
