import { describe, it, expect } from 'vitest';
import { parseRule } from '../../src/permission/rules.js';
import { analyzeCommand, matchCommandPattern, quoteWord, validateCommandPattern, type PatternBehavior, type SimpleCommand } from '../../src/permission/shell.js';
import { parseCommandPattern, type CommandPattern } from '../../src/permission/shell/pattern.js';

// Patterns are read by the same shell parser and word decoding as commands (shell/pattern.ts).

function pattern(text: string): CommandPattern {
  const p = parseCommandPattern(text);
  if (typeof p === 'string') throw new Error(`expected ${JSON.stringify(text)} to parse, got: ${p}`);
  return p;
}

function last(cmd: string): SimpleCommand {
  const r = analyzeCommand(cmd);
  if (!r.ok) throw new Error(`expected ${JSON.stringify(cmd)} to be analysed, got: ${r.reason}`);
  return r.commands[r.commands.length - 1]!;
}

describe('parseCommandPattern: words as the shell reads them', () => {
  const cases: { pattern: string; words: [string, string[] | null][]; assigns?: string[]; prefix?: boolean }[] = [
    { pattern: 'cat *.md', words: [['cat', null], ['*.md', ['', '.md']]] },
    { pattern: 'git * --dry-run', words: [['git', null], ['*', ['', '']], ['--dry-run', null]] },
    { pattern: 'cat **.md a**b', words: [['cat', null], ['**.md', ['', '', '.md']], ['a**b', ['a', '', 'b']]] },
    { pattern: 'ls *"*"*', words: [['ls', null], ['***', ['', '*', '']]] },
    { pattern: "cat '*.md'", words: [['cat', null], ['*.md', null]] },
    { pattern: 'cat "*.md"', words: [['cat', null], ['*.md', null]] },
    { pattern: 'cat \\*.md', words: [['cat', null], ['*.md', null]] },
    // quoted, unquoted and escaped stars in one word: only the unquoted one is a wildcard
    { pattern: "echo x'*'*y\\*", words: [['echo', null], ['x**y*', ['x*', 'y*']]] },
    { pattern: 'echo "a b"', words: [['echo', null], ['a b', null]] },
    { pattern: 'echo a\\ b', words: [['echo', null], ['a b', null]] },
    { pattern: "echo 'it''s'", words: [['echo', null], ['its', null]] },
    { pattern: `echo it"'"s "a"'b'c`, words: [['echo', null], ["it's", null], ['abc', null]] },
    { pattern: 'echo "a\\"b\\$c\\d"', words: [['echo', null], ['a"b$c\\d', null]] },
    { pattern: "printf $'a\\tb'", words: [['printf', null], ['a\tb', null]] },
    { pattern: 'ls ~/x', words: [['ls', null], ['~/x', null]] },
    { pattern: "FOO=1 BAR='x y' make *", assigns: ['FOO=1', 'BAR=x y'], words: [['make', null]], prefix: true },
    { pattern: 'A+=1 a[2]=x ls', assigns: ['A+=1', 'a[2]=x'], words: [['ls', null]] },
    // a quoted name is no assignment, for the shell as for the pattern
    { pattern: "'A'=1 ls", words: [['A=1', null], ['ls', null]] },
    { pattern: 'export A=1 B=*x', words: [['export', null], ['A=1', null], ['B=*x', ['B=', 'x']]] },
    { pattern: 'npm run test:*', words: [['npm', null], ['run', null], ['test', null]], prefix: true },
    { pattern: 'echo \\:*', words: [['echo', null], [':*', [':', '']]] },
    // unquoted parentheses are ordinary characters
    { pattern: 'f (a (b) c) d', words: [['f', null], ['(a', null], ['(b)', null], ['c)', null], ['d', null]] },
    { pattern: '(x)', words: [['(x)', null]] },
    { pattern: 'echo $(date)', words: [['echo', null], ['$(date)', null]] },
    { pattern: 'echo "(*)"', words: [['echo', null], ['(*)', null]] },
  ];
  it.each(cases)('$pattern', ({ pattern: text, words, assigns = [], prefix = false }) => {
    const p = pattern(text);
    expect(p.words.map((w) => [w.literal, w.segments])).toEqual(words);
    expect(p.assigns).toEqual(assigns);
    expect(p.prefix).toBe(prefix);
    expect(p.all).toBe(false);
  });

  it('keeps the malformed-pattern messages', () => {
    expect(parseCommandPattern('')).toBe('empty pattern');
    expect(parseCommandPattern("echo 'x")).toBe('unterminated quote');
    expect(parseCommandPattern('echo "x')).toBe('unterminated quote');
    expect(parseCommandPattern("echo $'x")).toBe('unterminated quote');
    expect(parseCommandPattern('echo \\')).toBe('trailing backslash');
    expect(parseCommandPattern('echo \\\\\\')).toBe('trailing backslash');
    expect(pattern('echo \\\\').words[1]).toEqual({ literal: '\\', segments: null });
    expect(parseCommandPattern('A=1')).toBe('pattern names no command');
    expect(parseCommandPattern('A=1 B=2 *')).toBe('pattern names no command');
    expect(parseCommandPattern('*')).toEqual({ assigns: [], words: [], prefix: true, all: true });
  });

  it('a word quoted for display reads back as the same word', () => {
    const c = last("awk '{print}\nsystem(\"x\")}' f");
    const text = c.argv.map(quoteWord).join(' ');
    expect(text).toContain("$'");
    expect(pattern(text).words.map((w) => w.literal)).toEqual(c.argv);
    expect(matchCommandPattern(text, c)).toBe(true);
  });
});

describe('parseCommandPattern: a pattern is one simple command of literal words', () => {
  const cases: [string, string][] = [
    ['a | b', 'a pattern is one simple command: "|" is not allowed'],
    ['a |& b', 'a pattern is one simple command: "|&" is not allowed'],
    ['a && b', 'a pattern is one simple command: "&&" is not allowed'],
    ['a || b:*', 'a pattern is one simple command: "||" is not allowed'],
    ['a; b', 'a pattern is one simple command: ";" is not allowed'],
    ['a;', 'a pattern is one simple command: ";" is not allowed'],
    ['find . -exec rm {} ;', 'a pattern is one simple command: ";" is not allowed'],
    ['a & b', 'a pattern is one simple command: "&" is not allowed'],
    ['a &', 'a pattern is one simple command: "&" is not allowed'],
    ['a\nb', 'a pattern is one simple command: a line break is not allowed'],
    ['! git status', 'a pattern is one simple command: "!" is not allowed'],
    ['time make *', 'a pattern is one simple command: "time" is not allowed'],
    ['if true; then ls; fi', 'a pattern is one simple command: "if" is not allowed'],
    ['{ ls; }', 'a pattern is one simple command: "{" is not allowed'],
    ['[[ -f x ]]', 'a pattern is one simple command: "[[" is not allowed'],
    ['echo x > out', 'a pattern has no redirections: "> out" is not allowed'],
    ['2>&1 make *', 'a pattern has no redirections: "2>&1" is not allowed'],
    ['cat <<EOF', 'a pattern has no redirections: "<<EOF" is not allowed'],
    ['sort < in', 'a pattern has no redirections: "< in" is not allowed'],
    ['echo $HOME', 'a pattern has no expansions: "$HOME" is not allowed'],
    ['cat "${HOME}/x"', 'a pattern has no expansions: "${HOME}" is not allowed'],
    ['echo $1 *', 'a pattern has no expansions: "$1" is not allowed'],
    ['FOO=$X make', 'a pattern has no expansions: "$X" is not allowed'],
    ['rm {a,b}.txt', 'a pattern has no expansions: "{a,b}" is not allowed'],
    ['echo `date`', 'a pattern has no substitutions: "`date`" is not allowed'],
    ['echo "`date`"', 'a pattern has no substitutions: "`date`" is not allowed'],
    ['ls a?.md', 'a pattern has only the "*" wildcard: "?" is not allowed'],
    ['ls [ab].md', 'a pattern has only the "*" wildcard: "[ab]" is not allowed'],
    ['git status # the short one', 'a pattern has no comments: "# the short one" is not allowed'],
    ['# ls', 'a pattern has no comments: "# ls" is not allowed'],
    ['FOO=* make', 'a pattern\'s assignments have no wildcards: "FOO=*" is not allowed'],
  ];
  it.each(cases)('%j → %s', (text, message) => {
    expect(parseCommandPattern(text)).toBe(message);
    expect(validateCommandPattern(text)).toBe(message);
    expect(matchCommandPattern(text, last('a'))).toBe(false);
  });

  it('the rule names the problem', () => {
    const r = parseRule('Bash(git log | head)');
    expect(r).toEqual({ ok: false, error: '"Bash(git log | head)": invalid command pattern: a pattern is one simple command: "|" is not allowed' });
  });

  it('quoted or escaped, the same characters are literal text', () => {
    const text = `echo '$HOME' 'a|b' '#x' \\; "a?b" '{a,b}' '>' \\\`date\\\``;
    const p = pattern(text);
    expect(p.words.map((w) => w.literal)).toEqual(['echo', '$HOME', 'a|b', '#x', ';', 'a?b', '{a,b}', '>', '`date`']);
    expect(matchCommandPattern(p, last(`echo "\\$HOME" a\\|b \\#x ';' 'a?b' "{a,b}" \\> '\`date\`'`))).toBe(true);
    const find = analyzeCommand('find . -exec rm {} \\;');
    expect(find.ok && find.commands.map((c) => matchCommandPattern('find . -exec rm {} \\;', c, 'deny'))).toEqual([true, false]);
  });
});

describe('matchCommandPattern with shell-read patterns', () => {
  const cases: { pattern: string; cmd: string; behavior?: PatternBehavior; expected: boolean }[] = [
    { pattern: "cat '*.md'", cmd: "cat '*.md'", expected: true },
    { pattern: "cat '*.md'", cmd: 'cat README.md', expected: false },
    { pattern: 'cat \\*.md', cmd: 'cat "*.md"', expected: true },
    { pattern: 'cat \\*.md', cmd: 'cat README.md', expected: false },
    { pattern: 'cat "*".md', cmd: 'cat x.md', behavior: 'deny', expected: false },
    { pattern: 'cat *.md', cmd: 'cat README.md', expected: true },
    { pattern: 'cat *.md', cmd: "cat '*.md'", expected: true },
    { pattern: 'cat *.md', cmd: 'cat docs/a.md', expected: true },
    { pattern: 'cat *.md', cmd: 'cat notes.txt', expected: false },
    { pattern: 'cat **.md', cmd: 'cat docs/a.md', expected: true },
    { pattern: 'ls *"*"*', cmd: "ls 'a*b'", expected: true },
    { pattern: 'ls *"*"*', cmd: 'ls ab', expected: false },
    { pattern: "echo x'*'*y", cmd: 'echo "x*zzy"', expected: true },
    { pattern: "echo x'*'*y", cmd: 'echo xzzy', expected: false },
    { pattern: 'echo "a b"', cmd: "echo 'a b'", expected: true },
    { pattern: 'echo "a b"', cmd: 'echo a b', expected: false },
    { pattern: 'echo a b', cmd: 'echo "a b"', expected: false },
    { pattern: "echo 'it''s'", cmd: 'echo its', expected: true },
    { pattern: `echo it"'"s`, cmd: `echo "it's"`, expected: true },
    { pattern: 'FOO=1 make *', cmd: 'FOO=1 make all', expected: true },
    { pattern: 'FOO=1 make *', cmd: 'FOO=2 make all', expected: false },
    { pattern: 'FOO=1 make *', cmd: 'make all', expected: false },
    { pattern: 'make *', cmd: 'FOO=1 make all', expected: false },
    { pattern: "BAR='x y' make", cmd: 'BAR="x y" make', expected: true },
    { pattern: "'FOO=1' make", cmd: 'FOO=1 make', expected: false },
    { pattern: 'export A=*', cmd: 'export A=1', expected: true },
    { pattern: 'echo $(date)', cmd: "echo '$(date)'", expected: true },
    { pattern: 'echo $(date)', cmd: 'echo $(date)', expected: false },
    { pattern: 'echo $(date)', cmd: 'echo $(date)', behavior: 'deny', expected: true },
  ];
  it.each(cases)('$behavior $pattern vs $cmd → $expected', ({ pattern: text, cmd, behavior, expected }) => {
    const c = last(cmd);
    expect(matchCommandPattern(text, c, behavior)).toBe(expected);
    expect(matchCommandPattern(pattern(text), c, behavior)).toBe(expected);
  });
});

describe('parseCommandPattern: cost', () => {
  it('stays linear in the pattern length', () => {
    const time = (text: string): number => {
      const t0 = performance.now();
      expect(typeof parseCommandPattern(text)).toBe('object');
      return performance.now() - t0;
    };
    time('warm up *');
    const words = `cmd ${'a*b '.repeat(4000)}`;
    const star = `cmd ${'x*'.repeat(40_000)}`;
    const quotes = `cmd ${"'a'\"b\"\\c".repeat(10_000)}`;
    for (const text of [words, star, quotes]) expect(time(text)).toBeLessThan(2000);
  });
});

describe('suggestions read back as the rule they were made for', () => {
  it('a suggested rule for a quoted assignment covers its own command', async () => {
    const { suggestRules } = await import('../../src/permission/suggest.js');
    const { allowingRules, parseRules } = await import('../../src/permission/rules.js');
    const command = "FOO='a b' make deploy";
    const subject = { kind: 'command' as const, analysis: analyzeCommand(command) };
    const offered = suggestRules('Bash', subject, '/ws');
    expect(offered[0]).toBe("Bash(FOO='a b' make deploy)");
    for (const rule of offered) {
      const parsed = parseRules('allow', [rule]);
      expect(parsed.problems).toEqual([]);
      expect(allowingRules(parsed.rules, { toolName: 'Bash', subject, root: '/ws' }), rule).not.toBeNull();
    }
  });
});
