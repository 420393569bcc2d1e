// The analyser and rule matching stay bounded on the largest inputs the tools accept: each shape
// either is analysed in full or fails closed with a reason naming the limit. (Times are measured
// by bench/analyzer.ts; these tests check the outcomes, which do not depend on the machine.)
import { describe, expect, it } from 'vitest';
import { largeInputs, repeat } from '../../bench/analyzer-inputs.js';
import { allowingRules, firstLenientMatch, parseRules } from '../../src/permission/rules.js';
import { analyzeCommand, matchCommandPattern, PatternIndex } from '../../src/permission/shell.js';

const EXPECTED: Record<string, RegExp | number> = {
  'here-docs, one per line': /more than 1000 commands/,
  'here-docs, all on one line': /more than 100 here-documents on one line/,
  'one command, many words': /more than 10000 words and syntax nodes/,
  'many short commands': /more than 1000 commands/,
  'long pipeline': /more than 1000 commands/,
  'long && chain': /more than 1000 commands/,
  'many redirects': /more than 10000 words/,
  'many case items': /more than 1000 commands/,
  'many substitutions in a word': /more than 1000 commands/,
  'deep $( ) nesting': /nesting depth exceeded/,
  'deep ( ) nesting': /nesting depth exceeded/,
  'deep { } nesting': /nesting depth exceeded/,
  'deep if nesting': /nesting depth exceeded/,
  'eval of a long script': /more than 1000 commands/,
  'many exports': /more than 64 variables exported/,
  'many prefix assignments': /more than 10000 words|more than 64 assignments/,
  'many options': /more than 10000 words/,
  'many git options': 1,
  'long awk program': 1,
  'long sed script': 1,
  'many process substitutions': /more than 1000 commands/,
  'many globs': /more than 10000 words/,
  'long [[ ]]': /more than 10000 words/,
};

describe('the largest inputs: analysed in full or refused with the limit they pass', () => {
  it.each(largeInputs().map((i) => [i.name, i.command] as const))('%s', (name, command) => {
    expect(command.length).toBeGreaterThan(900);
    expect(command.length).toBeLessThanOrEqual(100_000);
    const want = EXPECTED[name];
    expect(want, `no expectation for ${name}`).toBeDefined();
    const r = analyzeCommand(command);
    if (typeof want === 'number') {
      if (!r.ok) throw new Error(r.reason);
      expect(r.commands).toHaveLength(want);
    } else {
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.reason).toMatch(want!);
    }
  });
});

describe('the limits are where they say', () => {
  it('1000 commands, 100 here-documents on a line, 64 exports', () => {
    expect(analyzeCommand(repeat('ls', ';', 1000 * 3 - 1))).toMatchObject({ ok: true, commands: { length: 1000 } });
    expect(analyzeCommand(repeat('ls', ';', 1001 * 3 - 1))).toMatchObject({ ok: false });
    const docs = (n: number) => `cat${' <<E'.repeat(n)}\n${'x\nE\n'.repeat(n)}`;
    expect(analyzeCommand(docs(100))).toMatchObject({ ok: true, commands: { length: 1 } });
    expect(analyzeCommand(docs(101))).toMatchObject({ ok: false, reason: 'more than 100 here-documents on one line' });
    const exports = (n: number) => Array.from({ length: n }, (_, i) => `export V${i}=1`).join(';');
    expect(analyzeCommand(exports(64)).ok).toBe(true);
    expect(analyzeCommand(exports(65))).toMatchObject({ ok: false, reason: 'more than 64 variables exported' });
    expect(analyzeCommand(`${'A=1 '.repeat(65)}ls`)).toMatchObject({ ok: false, reason: 'a command runs with more than 64 assignments' });
  });

  it('hundreds of here-documents on separate lines, under the command limit, are analysed', () => {
    const r = analyzeCommand(repeat('cat <<E\nx $(ls)\nE', '\n', 450 * 18));
    if (!r.ok) throw new Error(r.reason);
    expect(r.commands.filter((c) => c.argv[0] === 'cat')).toHaveLength(450);
    expect(r.commands.filter((c) => c.argv[0] === 'ls' && c.nested)).toHaveLength(450);
  });
});

describe('rule matching on large lines', () => {
  const rules = parseRules('rules', [...Array.from({ length: 499 }, (_, i) => `Bash(git sub${i} *)`), 'Bash(git push *)']).rules;
  const line = Array.from({ length: 999 }, (_, i) => `git push origin b${i}`).join('; ');
  const analysis = analyzeCommand(line);
  const ctx = { toolName: 'Bash', subject: { kind: 'command' as const, analysis }, root: '/ws' };

  it('finds the one rule that matches among hundreds, for deny and allow', () => {
    expect(analysis.ok && analysis.commands.length).toBe(999);
    expect(firstLenientMatch(rules, 'deny', ctx)?.text).toBe('Bash(git push *)');
    expect(allowingRules(rules, ctx)?.map((r) => r.text)).toEqual(['Bash(git push *)']);
    expect(firstLenientMatch(rules.slice(0, 499), 'deny', ctx)).toBeUndefined();
  });

  it('the index keeps rule order and every way a rule can still match', () => {
    const idx = new PatternIndex(
      ['rm *', '*', 'git push *', 'r* x', 'git * --force', 'npm install *', 'kubectl delete *', 'bad "'].map((pattern, id) => ({ id, pattern })),
    );
    const only = (cmd: string) => {
      const r = analyzeCommand(cmd);
      if (!r.ok) throw new Error(r.reason);
      return r.commands[0]!;
    };
    expect(idx.candidates(only('/bin/rm x'), 'deny')).toEqual([0, 1, 3]);
    expect(idx.candidates(only('/bin/rm x'), 'allow')).toEqual([1, 3]);
    expect(idx.candidates(only('git -C r push'), 'deny')).toEqual([1, 2, 3]);
    expect(idx.candidates(only('git push --force'), 'allow')).toEqual([1, 2, 3, 4]);
    expect(idx.candidates(only('git log'), 'deny')).toEqual([1, 3]); // no `push`, no `--force`
    expect(idx.candidates(only('git push "$X"'), 'deny')).toEqual([1, 2, 3, 4]); // a dynamic word could be anything
    expect(idx.candidates(only('npm i x'), 'deny')).toEqual([1, 3, 5]); // an alias
    expect(idx.candidates(only('kubectl -n p delete x'), 'deny')).toEqual([1, 3, 6]);
  });

  it('wildcards match without backtracking', () => {
    const r = analyzeCommand(`echo ${'a'.repeat(50_000)}`);
    if (!r.ok) throw new Error(r.reason);
    expect(matchCommandPattern('echo *a*a*a*a*a*a*a*a*a*a*a*a*c', r.commands[0]!)).toBe(false);
    expect(matchCommandPattern('echo *a*a*a*a*a*a*a*a*a*a*a*a*a', r.commands[0]!)).toBe(true);
    expect(matchCommandPattern('echo a*a*aa*', r.commands[0]!)).toBe(true);
  });
});
