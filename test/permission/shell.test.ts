import { describe, it, expect } from 'vitest';
import {
  analyzeCommand,
  isReadOnlyCommand,
  matchCommandPattern,
  validateCommandPattern,
  type CommandAnalysis,
  type PatternBehavior,
  type Redirect,
  type SimpleCommand,
} from '../../src/permission/shell.js';

// Expected commands are written compactly: words separated by single spaces (use an array for a
// word containing a space), a leading '^' marks a nested command. Order is the analyser's order
// (a substitution's commands come before the command whose word contains it).
type Expected = string | { argv: string[]; nested?: boolean };

interface OkCase {
  cmd: string;
  commands: Expected[];
  readOnly: boolean;
  redirects?: Redirect[];
}

interface FailCase {
  cmd: string;
  /** What the reason must mention. */
  reason: RegExp;
}

function expand(e: Expected): { argv: string[]; nested: boolean } {
  if (typeof e !== 'string') return { argv: e.argv, nested: e.nested ?? false };
  const nested = e.startsWith('^');
  return { argv: (nested ? e.slice(1) : e).split(' '), nested };
}

function mustAnalyze(cmd: string): Extract<CommandAnalysis, { ok: true }> {
  const r = analyzeCommand(cmd);
  if (!r.ok) throw new Error(`expected ${JSON.stringify(cmd)} to be analysed, got ok:false: ${r.reason}`);
  return r;
}

function only(cmd: string): SimpleCommand {
  const r = mustAnalyze(cmd);
  expect(r.commands).toHaveLength(1);
  return r.commands[0]!;
}

const okCases: OkCase[] = [
  // ── compound commands are split ──
  { cmd: 'ls; rm -rf /', commands: ['ls', 'rm -rf /'], readOnly: false },
  { cmd: 'ls\nrm x', commands: ['ls', 'rm x'], readOnly: false },
  { cmd: 'ls&rm x', commands: ['ls', 'rm x'], readOnly: false },
  { cmd: 'ls |& rm x', commands: ['ls', 'rm x'], readOnly: false },
  { cmd: 'ls || rm x', commands: ['ls', 'rm x'], readOnly: false },
  { cmd: 'ls &&\n  rm x', commands: ['ls', 'rm x'], readOnly: false },
  { cmd: '(cd x && ls)', commands: ['cd x', 'ls'], readOnly: true },
  { cmd: '{ ls; rm x; }', commands: ['ls', 'rm x'], readOnly: false },
  { cmd: 'if true; then rm x; fi', commands: ['true', 'rm x'], readOnly: false },
  { cmd: 'if ls\nthen cat a\nelif true; then rm x; else echo; fi', commands: ['ls', 'cat a', 'true', 'rm x', 'echo'], readOnly: false },
  { cmd: 'while false; do rm x; done', commands: ['false', 'rm x'], readOnly: false },
  { cmd: 'until false; do ls; done', commands: ['false', 'ls'], readOnly: true },
  { cmd: 'for f in *; do rm $f; done', commands: ['rm $f'], readOnly: false },
  { cmd: 'for f in *.ts; do wc -l "$f"; done', commands: ['wc -l $f'], readOnly: true },
  { cmd: 'case $x in a) rm x;; (b|c) ls;; esac', commands: ['rm x', 'ls'], readOnly: false },
  { cmd: 'select x in a b; do rm $x; done', commands: ['rm $x'], readOnly: false },
  { cmd: 'cat file | tee out', commands: ['cat file', 'tee out'], readOnly: false },
  { cmd: 'ls | grep x | sort | uniq -c', commands: ['ls', 'grep x', 'sort', 'uniq -c'], readOnly: true },
  { cmd: '! ls', commands: ['ls'], readOnly: true },
  { cmd: 'time -p ls', commands: ['ls'], readOnly: true },
  { cmd: 'ls # ; rm x', commands: ['ls'], readOnly: true },
  { cmd: 'echo hi # c\nrm x', commands: ['echo hi', 'rm x'], readOnly: false },
  { cmd: '#!/bin/bash\nls', commands: ['ls'], readOnly: true },
  { cmd: 'ls \\\n  -la', commands: ['ls -la'], readOnly: true },
  { cmd: '[[ -f x ]] && cat x', commands: ['[[ -f x ]]', 'cat x'], readOnly: true },
  { cmd: '[ -f "$f" ] && cat "$f"', commands: ['[ -f $f ]', 'cat $f'], readOnly: true },

  // ── substitutions ──
  { cmd: 'echo $(rm -rf /)', commands: ['^rm -rf /', { argv: ['echo', '$(rm -rf /)'] }], readOnly: false },
  { cmd: 'echo `rm x`', commands: ['^rm x', { argv: ['echo', '`rm x`'] }], readOnly: false },
  {
    cmd: 'echo `echo \\`rm x\\``',
    commands: ['^rm x', { argv: ['echo', '`rm x`'], nested: true }, { argv: ['echo', '`echo \\`rm x\\``'] }],
    readOnly: false,
  },
  { cmd: 'cat <(rm x)', commands: ['^rm x', { argv: ['cat', '<(rm x)'] }], readOnly: false },
  { cmd: 'echo >(rm x)', commands: ['^rm x', { argv: ['echo', '>(rm x)'] }], readOnly: false },
  {
    cmd: 'echo "$(ls "$(rm q)")"',
    commands: ['^rm q', { argv: ['ls', '$(rm q)'], nested: true }, { argv: ['echo', '$(ls "$(rm q)")'] }],
    readOnly: false,
  },
  { cmd: 'echo ${x:-$(rm y)}', commands: ['^rm y', { argv: ['echo', '${x:-$(rm y)}'] }], readOnly: false },
  { cmd: 'x=$(rm y)', commands: ['^rm y'], readOnly: false },
  { cmd: 'cat <<EOF\nhi $(rm x)\nEOF\nls', commands: ['^rm x', 'cat', 'ls'], readOnly: false },
  { cmd: "cat <<'EOF'\n$(rm x)\nEOF", commands: ['cat'], readOnly: true },
  { cmd: 'cat <<-EOF\n\tx\n\tEOF', commands: ['cat'], readOnly: true },

  // ── eval / shells / xargs / find ──
  { cmd: 'eval "rm -rf /"', commands: ['^rm -rf /'], readOnly: false },
  { cmd: "eval 'ls; cat x'", commands: ['^ls', '^cat x'], readOnly: true },
  { cmd: 'builtin eval rm x', commands: ['^rm x'], readOnly: false },
  { cmd: "bash -c 'rm x'", commands: ['^rm x'], readOnly: false },
  { cmd: 'sh -c "ls; rm x"', commands: ['^ls', '^rm x'], readOnly: false },
  { cmd: "bash -ec 'ls'", commands: ['^ls'], readOnly: true },
  { cmd: "zsh -c 'eval \"rm x\"'", commands: ['^rm x'], readOnly: false },
  { cmd: "dash -e -c 'sh -c \"git push\"'", commands: ['^git push'], readOnly: false },
  { cmd: 'sh script.sh', commands: ['sh script.sh'], readOnly: false },
  { cmd: "./bash -c 'rm x'", commands: [{ argv: ['./bash', '-c', 'rm x'] }], readOnly: false },
  { cmd: 'xargs rm < list', commands: ['^rm'], readOnly: false, redirects: [{ op: '<', target: 'list', writes: false }] },
  { cmd: 'find . -name "*.ts" | xargs wc -l', commands: ['find . -name *.ts', '^wc -l'], readOnly: true },
  { cmd: 'find . -print0 | xargs -0 -n1 -P4 rm -f', commands: ['find . -print0', '^rm -f'], readOnly: false },
  { cmd: 'xargs -I{} cp {} dest/', commands: ['^cp {} dest/'], readOnly: false },
  { cmd: 'find . -exec rm {} \\;', commands: ['find . -exec rm {} ;', '^rm {}'], readOnly: false },
  { cmd: 'find . -type f -execdir grep -l foo {} +', commands: ['find . -type f -execdir grep -l foo {} +', '^grep -l foo {}'], readOnly: false },
  { cmd: "find . -exec sh -c 'rm \"$1\"' _ {} \\;", commands: [{ argv: ['find', '.', '-exec', 'sh', '-c', 'rm "$1"', '_', '{}', ';'] }, '^rm $1'], readOnly: false },
  { cmd: 'find . -name x -delete', commands: ['find . -name x -delete'], readOnly: false },
  { cmd: 'find . -name x', commands: ['find . -name x'], readOnly: true },
  { cmd: "watch -n 1 'rm x'", commands: ['^rm x'], readOnly: false },

  // ── wrappers ──
  { cmd: 'timeout 5 rm x', commands: ['rm x'], readOnly: false },
  { cmd: 'timeout -s KILL --preserve-status 5 ls', commands: ['ls'], readOnly: true },
  { cmd: 'time ls -l', commands: ['ls -l'], readOnly: true },
  { cmd: 'nice -n 5 env A=1 rm x', commands: ['rm x'], readOnly: false },
  { cmd: 'nohup ls', commands: ['ls'], readOnly: false },
  { cmd: 'command rm x', commands: ['rm x'], readOnly: false },
  { cmd: 'command -v git', commands: ['command -v git'], readOnly: true },
  { cmd: 'exec rm x', commands: ['rm x'], readOnly: false },
  { cmd: 'stdbuf -oL grep x f', commands: ['grep x f'], readOnly: true },
  { cmd: 'ionice -c 3 rm x', commands: ['rm x'], readOnly: false },
  { cmd: 'setsid rm x', commands: ['rm x'], readOnly: false },
  { cmd: 'busybox rm x', commands: ['rm x'], readOnly: false },
  { cmd: '/usr/bin/env rm x', commands: ['rm x'], readOnly: false },
  { cmd: 'env', commands: ['env'], readOnly: true },
  { cmd: 'sudo rm x', commands: ['sudo rm x', '^rm x'], readOnly: false },
  { cmd: 'sudo -u root -- ls', commands: ['sudo -u root -- ls', '^ls'], readOnly: false },
  { cmd: "su -c 'rm x'", commands: [{ argv: ['su', '-c', 'rm x'] }, '^rm x'], readOnly: false },
  { cmd: 'a=1 b=2 ls', commands: ['ls'], readOnly: false },
  { cmd: 'LANG=C ls', commands: ['ls'], readOnly: true },
  { cmd: 'X=1; ls', commands: ['ls'], readOnly: true },

  // ── quoting tricks decode to the real name ──
  { cmd: "r''m x", commands: ['rm x'], readOnly: false },
  { cmd: '\\rm x', commands: ['rm x'], readOnly: false },
  { cmd: 'r\\m x', commands: ['rm x'], readOnly: false },
  { cmd: '"r"m x', commands: ['rm x'], readOnly: false },
  { cmd: "$'\\x72\\x6d' x", commands: ['rm x'], readOnly: false },
  { cmd: "$'\\162\\155' x", commands: ['rm x'], readOnly: false },
  { cmd: '$"rm" x', commands: ['rm x'], readOnly: false },
  { cmd: 'echo "a b" \'c d\'', commands: [{ argv: ['echo', 'a b', 'c d'] }], readOnly: true },

  // ── arguments that are not static (allowed, kept literally) ──
  { cmd: 'echo $HOME', commands: ['echo $HOME'], readOnly: true },
  { cmd: 'ls "$dir"/*.ts', commands: ['ls $dir/*.ts'], readOnly: true },
  { cmd: 'rm {a,b}', commands: ['rm {a,b}'], readOnly: false },
  { cmd: 'echo ${#x} ${x%.ts} ${x/a/b} "${arr[@]}"', commands: ['echo ${#x} ${x%.ts} ${x/a/b} ${arr[@]}'], readOnly: true },
  { cmd: 'git diff *', commands: ['git diff *'], readOnly: false },
  { cmd: 'find . -name "$pat"', commands: ['find . -name $pat'], readOnly: false },

  // ── redirects ──
  { cmd: 'echo hi > out.txt', commands: ['echo hi'], readOnly: false, redirects: [{ op: '>', target: 'out.txt', writes: true }] },
  {
    cmd: 'ls > /dev/null 2>&1',
    commands: ['ls'],
    readOnly: true,
    redirects: [{ op: '>', target: '/dev/null', writes: false }, { op: '2>&', target: '1', writes: false }],
  },
  { cmd: 'ls 2>err.log', commands: ['ls'], readOnly: false, redirects: [{ op: '2>', target: 'err.log', writes: true }] },
  { cmd: 'ls >&2', commands: ['ls'], readOnly: true, redirects: [{ op: '>&', target: '2', writes: false }] },
  { cmd: 'ls &> out', commands: ['ls'], readOnly: false, redirects: [{ op: '&>', target: 'out', writes: true }] },
  { cmd: 'ls &>> out', commands: ['ls'], readOnly: false, redirects: [{ op: '&>>', target: 'out', writes: true }] },
  { cmd: 'ls >| out', commands: ['ls'], readOnly: false, redirects: [{ op: '>|', target: 'out', writes: true }] },
  { cmd: 'cat <> f', commands: ['cat'], readOnly: false, redirects: [{ op: '<>', target: 'f', writes: true }] },
  { cmd: 'ls >& out', commands: ['ls'], readOnly: false, redirects: [{ op: '>&', target: 'out', writes: true }] },
  { cmd: 'ls >> log 2>/dev/null', commands: ['ls'], readOnly: false, redirects: [{ op: '>>', target: 'log', writes: true }, { op: '2>', target: '/dev/null', writes: false }] },
  {
    cmd: 'cat < in > out',
    commands: ['cat'],
    readOnly: false,
    redirects: [{ op: '<', target: 'in', writes: false }, { op: '>', target: 'out', writes: true }],
  },
  { cmd: '{ ls; } > out', commands: ['ls'], readOnly: false, redirects: [{ op: '>', target: 'out', writes: true }] },
  { cmd: '> file', commands: [], readOnly: false, redirects: [{ op: '>', target: 'file', writes: true }] },
  { cmd: 'echo $(echo hi > f)', commands: ['^echo hi', { argv: ['echo', '$(echo hi > f)'] }], readOnly: false, redirects: [{ op: '>', target: 'f', writes: true }] },
  { cmd: 'cat <<< "$x"', commands: ['cat'], readOnly: true, redirects: [{ op: '<<<', target: null, writes: false }] },
  { cmd: 'ls > "$out"', commands: ['ls'], readOnly: false, redirects: [{ op: '>', target: '$out', writes: true }] },

  // ── read-only allowlist ──
  { cmd: 'git status', commands: ['git status'], readOnly: true },
  { cmd: 'git status && git diff HEAD', commands: ['git status', 'git diff HEAD'], readOnly: true },
  { cmd: 'git -c core.pager=evil log', commands: ['git -c core.pager=evil log'], readOnly: false },
  { cmd: 'git push', commands: ['git push'], readOnly: false },
  { cmd: 'git branch', commands: ['git branch'], readOnly: true },
  { cmd: 'git branch -D x', commands: ['git branch -D x'], readOnly: false },
  { cmd: 'git log -p --output=/tmp/x', commands: ['git log -p --output=/tmp/x'], readOnly: false },
  { cmd: 'sort -o f x', commands: ['sort -o f x'], readOnly: false },
  { cmd: 'sort -u x', commands: ['sort -u x'], readOnly: true },
  { cmd: 'grep -r foo . | head -5', commands: ['grep -r foo .', 'head -5'], readOnly: true },
  { cmd: 'ls -la ~', commands: ['ls -la ~'], readOnly: true },
  { cmd: 'while read -r l; do echo "$l"; done < f', commands: ['read -r l', 'echo $l'], readOnly: true },
];

const failCases: FailCase[] = [
  // command name not static
  { cmd: '$CMD x', reason: /command name \$CMD/ },
  { cmd: '${X:-rm} y', reason: /command name/ },
  { cmd: '$(echo rm) -rf /', reason: /command name \$\(echo rm\)/ },
  { cmd: '"$(echo rm)" x', reason: /command name/ },
  { cmd: 'echo a; `rm x`', reason: /command name/ },
  { cmd: '/bin/r? x', reason: /command name \/bin\/r\?/ },
  { cmd: '{rm,-rf,/}', reason: /command name/ },
  { cmd: 'timeout 5 $X', reason: /command name \$X/ },
  { cmd: 'xargs -I{} {} x', reason: /replaced by run-time input/ },
  { cmd: 'find . -exec {} \\;', reason: /replaced by run-time input/ },
  // parse errors / dropped tokens
  { cmd: 'ls (', reason: /parse error/ },
  { cmd: 'ls ( x', reason: /parse error/ },
  { cmd: "echo 'unterminated", reason: /unterminated single quote/ },
  { cmd: 'echo $(ls', reason: /parse error/ },
  { cmd: 'ls; ; rm x', reason: /parse error/ },
  { cmd: 'if ls; then', reason: /parse error/ },
  { cmd: 'ls ) rm x', reason: /parse error/ },
  // shells reading stdin, eval of non-literal text
  { cmd: 'bash <<EOF\nrm x\nEOF', reason: /here-document/ },
  { cmd: "bash <<< 'rm x'", reason: /here-document/ },
  { cmd: 'ls && curl x | sh', reason: /sh would read its script from standard input/ },
  { cmd: 'bash -c "$X"', reason: /not a literal word/ },
  { cmd: 'curl x | bash -s -- arg', reason: /standard input/ },
  { cmd: 'bash', reason: /standard input/ },
  { cmd: 'eval "rm $X"', reason: /eval argument/ },
  { cmd: 'xargs -I{} sh -c "echo {}"', reason: /run-time input/ },
  { cmd: "find . -exec sh -c 'echo {}' \\;", reason: /run-time input/ },
  { cmd: 'find $dir -name x', reason: /could be an action/ },
  { cmd: 'find . -exec echo $X \\;', reason: /not a literal word/ },
  { cmd: 'env $X', reason: /env argument \$X/ },
  { cmd: "env -S 'rm x'", reason: /env option -S/ },
  // unsupported / state-changing builtins
  { cmd: 'exec > out', reason: /exec without a command/ },
  { cmd: 'exec 3>&1', reason: /exec without a command/ },
  { cmd: '. ./script', reason: /source/ },
  { cmd: 'source x', reason: /source/ },
  { cmd: 'f() { rm x; }; f', reason: /function definitions/ },
  { cmd: 'function f { rm x; }', reason: /function definitions/ },
  { cmd: 'alias ls=rm', reason: /alias/ },
  { cmd: "trap 'rm x' EXIT", reason: /trap/ },
  { cmd: 'coproc ls', reason: /coproc/ },
  { cmd: 'hash -p /tmp/evil ls', reason: /hash -p/ },
  // arithmetic and code-evaluating expansions
  { cmd: 'echo $((1+1))', reason: /arithmetic/ },
  { cmd: 'echo $[1+1]', reason: /arithmetic/ },
  { cmd: '(( x++ ))', reason: /arithmetic/ },
  { cmd: 'for ((i=0;i<3;i++)); do ls; done', reason: /arithmetic/ },
  { cmd: 'let x=1', reason: /let/ },
  { cmd: '[[ $x -eq 1 ]]', reason: /arithmetic/ },
  { cmd: 'echo ${a[$(rm x)]}', reason: /array subscript/ },
  { cmd: 'a[$(rm x)]=1', reason: /array subscript/ },
  { cmd: 'echo ${!x}', reason: /indirect/ },
  { cmd: 'echo ${x@P}', reason: /not supported/ },
  { cmd: 'echo ${x:=rm}', reason: /assigns/ },
  { cmd: 'echo ${x:1:2}', reason: /not supported/ },
  { cmd: 'printf -v "a[\\$(rm x)]" x', reason: /printf -v/ },
  { cmd: '[ "$a" "$b" ]', reason: /-v/ },
  { cmd: 'test $x', reason: /unquoted expansion/ },
  { cmd: 'declare -i x=1', reason: /declare -i/ },
  { cmd: 'declare -n r=PATH', reason: /declare -n/ },
  // shell-sensitive variables
  { cmd: 'PATH=/tmp/evil; git status', reason: /PATH/ },
  { cmd: 'export HOME=/tmp/x; git status', reason: /HOME/ },
  { cmd: 'read PATH', reason: /PATH/ },
  { cmd: 'for IFS in a; do ls; done', reason: /IFS/ },
  { cmd: "PROMPT_COMMAND='rm x'", reason: /PROMPT_COMMAND/ },
  // misc
  { cmd: 'cat {fd}>x', reason: /\{fd\}/ },
  { cmd: 'sudo $X', reason: /not a literal word/ },
  // a login shell runs profile files first
  { cmd: "bash -lc 'ls'", reason: /bash -l/ },
];

describe('analyzeCommand: commands, nesting, read-only and redirects', () => {
  it.each(okCases)('$cmd', ({ cmd, commands, readOnly, redirects }) => {
    const r = mustAnalyze(cmd);
    expect(r.commands.map((c) => ({ argv: c.argv, nested: c.nested }))).toEqual(commands.map(expand));
    expect(r.readOnly).toBe(readOnly);
    if (redirects !== undefined) expect(r.redirects).toEqual(redirects);
  });
});

describe('analyzeCommand: fails closed', () => {
  it.each(failCases)('$cmd', ({ cmd, reason }) => {
    const r = analyzeCommand(cmd);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(reason);
  });
});

describe('analyzeCommand: SimpleCommand details', () => {
  it('marks dynamic words and keeps their literal text', () => {
    const c = only('cat "$f" x *.ts');
    expect(c.argv).toEqual(['cat', '$f', 'x', '*.ts']);
    expect(c.dynamic).toEqual([false, true, false, true]);
  });

  it('records prefix and env-wrapper assignments, and their effect on readOnly', () => {
    const c = only('A=1 env B=2 ls');
    expect(c.assignments).toEqual(['A=1', 'B=2']);
    expect(c.readOnly).toBe(false);
    expect(c.text).toBe('A=1 B=2 ls');
  });

  it('propagates exported assignments to later commands only', () => {
    const r = mustAnalyze('ls; export FOO=1; ls');
    expect(r.commands.map((c) => c.assignments)).toEqual([[], [], ['FOO=1']]);
    expect(r.commands[2]!.readOnly).toBe(false);
  });

  it('passes assignments through bash -c into nested commands', () => {
    const r = mustAnalyze("A=1 bash -c 'ls'");
    expect(r.commands).toHaveLength(1);
    expect(r.commands[0]!.assignments).toEqual(['A=1']);
    expect(r.commands[0]!.nested).toBe(true);
  });

  it('marks xargs and find -exec {} commands as taking run-time arguments', () => {
    expect(only('xargs grep foo').openArgs).toBe(true);
    const r = mustAnalyze('find . -exec echo hi \\; -exec cat {} \\;');
    expect(r.commands.map((c) => [c.argv.join(' '), c.openArgs])).toEqual([
      ['find . -exec echo hi ; -exec cat {} ;', false],
      ['echo hi', false],
      ['cat {}', true],
    ]);
  });

  it('builds a display text that quotes where needed and keeps dynamic words as written', () => {
    expect(only("echo 'a b' \"$HOME\" x\\;y ''").text).toBe(`echo 'a b' "$HOME" 'x;y' ''`);
    expect(only("printf '%s\\n' a").text).toBe("printf '%s\\n' a");
    expect(only("echo $'a\\tb'").text).toBe("echo $'a\\x09b'");
    expect(only('[[ ! -f "a b" ]]').text).toBe("[[ ! -f 'a b' ]]");
    expect(only("A='x y' ls ~/src").text).toBe("A='x y' ls ~/src");
  });

  it('tees and other file-writing commands are commands, not redirects', () => {
    const r = mustAnalyze('ls | tee out');
    expect(r.redirects).toEqual([]);
    expect(r.commands.map((c) => [c.argv[0], c.readOnly])).toEqual([['ls', true], ['tee', false]]);
  });

  it('an empty command or a comment runs nothing', () => {
    expect(analyzeCommand('')).toEqual({ ok: true, commands: [], redirects: [], readOnly: true });
    expect(analyzeCommand('  # nothing')).toEqual({ ok: true, commands: [], redirects: [], readOnly: true });
  });

  it('refuses nesting beyond the depth limit', () => {
    let cmd = 'ls';
    for (let i = 0; i < 20; i++) cmd = `echo $(${cmd})`;
    expect(analyzeCommand('echo $(echo $(echo $(ls)))').ok).toBe(true);
    const r = analyzeCommand(cmd);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(/nesting/);
  });
});

describe('isReadOnlyCommand', () => {
  const cases: [string[], boolean][] = [
    [['ls', '-la'], true],
    [['cat', 'a', 'b'], true],
    [['git', 'status'], true],
    [['git', 'log', '--oneline'], true],
    [['git', '-C', 'sub', 'diff'], true],
    [['git', '-c', 'x=y', 'status'], false],
    [['git', '-p', 'log'], false],
    [['git', 'commit', '-m', 'x'], false],
    [['git', 'diff', '--ext-diff'], false],
    [['git', 'show', '-o', 'x'], false],
    [['git', 'remote', '-v'], true],
    [['git', 'remote', 'add', 'o', 'u'], false],
    [['git', 'branch', '--list'], true],
    [['git', 'branch', 'new'], false],
    [['find', '.', '-name', 'x'], true],
    [['find', '.', '-fprint', 'out'], false],
    [['find', '.', '-exec', 'ls', ';'], false],
    [['sort', '-uo', 'f'], false],
    [['sort', '--output=f'], false],
    [['uniq', 'in'], true],
    [['uniq', 'in', 'out'], false],
    [['date', '+%s'], true],
    [['date', '-s', 'now'], false],
    [['date', '010101012000'], false],
    [['hostname'], true],
    [['hostname', 'evil'], false],
    [['env'], true],
    [['env', 'rm', 'x'], false],
    [['rg', '--pre', 'sh', 'x'], false],
    [['rg', 'x'], true],
    [['file', '-C'], false],
    [['tree', '-o', 'x'], false],
    [['printf', '-v', 'x', 'y'], false],
    [['test', '-f', 'x'], true],
    [['sed', '-n', 'p', 'x'], false],
    [['less', 'x'], false],
    [['/bin/ls'], true],
    [['./ls'], false],
    [['timeout', '5', 'ls'], false],
    [[], false],
  ];
  it.each(cases)('%j → %s', (argv, expected) => {
    expect(isReadOnlyCommand(argv)).toBe(expected);
  });
});

describe('matchCommandPattern', () => {
  const cases: { pattern: string; cmd: string; behavior?: PatternBehavior; expected: boolean }[] = [
    { pattern: 'git status', cmd: 'git status', expected: true },
    { pattern: 'git status', cmd: 'git status -s', expected: false },
    { pattern: 'git status', cmd: 'git', expected: false },
    { pattern: 'npm run test:*', cmd: 'npm run test', expected: true },
    { pattern: 'npm run test:*', cmd: 'npm run test --watch', expected: true },
    { pattern: 'npm run test:*', cmd: 'npm run testx', expected: false },
    { pattern: 'npm run test:*', cmd: 'npm run test:unit', expected: false },
    { pattern: 'npm run test *', cmd: 'npm run test -- -t x', expected: true },
    { pattern: 'npm run test *', cmd: 'npm run lint', expected: false },
    { pattern: 'git * --dry-run', cmd: 'git push --dry-run', expected: true },
    { pattern: 'git * --dry-run', cmd: 'git push origin --dry-run', expected: false },
    { pattern: 'cat *.md', cmd: 'cat README.md', expected: true },
    { pattern: 'cat *.md', cmd: 'cat notes.txt', expected: false },
    { pattern: "cat '*.md'", cmd: 'cat README.md', expected: false },
    { pattern: "echo 'a b'", cmd: 'echo "a b"', expected: true },
    { pattern: 'echo a b', cmd: "echo 'a b'", expected: false },
    { pattern: '*', cmd: 'rm -rf /', expected: true },
    // allow is strict
    { pattern: 'rm:*', cmd: '/bin/rm x', expected: false },
    { pattern: 'rm foo', cmd: 'rm $X', expected: false },
    { pattern: 'rm *', cmd: 'rm $X', expected: true },
    { pattern: 'rm x', cmd: 'xargs rm x', expected: false },
    { pattern: 'rm:*', cmd: 'xargs rm', expected: true },
    { pattern: 'ls:*', cmd: 'PATH=/tmp ls', expected: false },
    { pattern: 'PATH=/tmp ls:*', cmd: 'PATH=/tmp ls -l', expected: true },
    { pattern: 'ls:*', cmd: 'LC_ALL=C ls', expected: true },
    { pattern: 'git status', cmd: 'export FOO=1; git status', expected: false },
    // deny / ask are lenient so a rule cannot be dodged
    { pattern: 'rm:*', cmd: '/bin/rm x', behavior: 'deny', expected: true },
    { pattern: 'rm:*', cmd: './rm x', behavior: 'deny', expected: true },
    { pattern: 'rm -rf /', cmd: 'rm -rf $X', behavior: 'deny', expected: true },
    { pattern: 'rm -rf /', cmd: 'rm $X', behavior: 'ask', expected: true },
    { pattern: 'rm -rf:*', cmd: 'xargs rm', behavior: 'deny', expected: true },
    { pattern: 'rm -rf:*', cmd: 'rm -f x', behavior: 'deny', expected: false },
    { pattern: 'ls:*', cmd: 'A=1 ls', behavior: 'deny', expected: true },
    { pattern: 'git push', cmd: 'git push origin', behavior: 'deny', expected: false },
    { pattern: 'git push:*', cmd: 'git push origin', behavior: 'deny', expected: true },
  ];
  it.each(cases)('$behavior $pattern vs $cmd → $expected', ({ pattern, cmd, behavior, expected }) => {
    const r = mustAnalyze(cmd);
    const last = r.commands[r.commands.length - 1]!;
    expect(matchCommandPattern(pattern, last, behavior)).toBe(expected);
  });

  it('is applied per simple command, so it never spans ; && | or substitutions', () => {
    const r = mustAnalyze('git status; rm -rf / && echo $(git status)');
    expect(r.commands.map((c) => matchCommandPattern('git status:*', c))).toEqual([true, false, true, false]);
  });

  it('a sudo line needs sudo itself allowed, and a deny on the inner command catches it', () => {
    const r = mustAnalyze('sudo rm x');
    expect(r.commands.map((c) => matchCommandPattern('rm:*', c))).toEqual([false, true]);
    expect(r.commands.map((c) => matchCommandPattern('rm:*', c, 'deny'))).toEqual([false, true]);
  });

  it('validates patterns', () => {
    expect(validateCommandPattern('git status')).toBeNull();
    expect(validateCommandPattern('npm run test:*')).toBeNull();
    expect(validateCommandPattern("echo 'x")).toMatch(/unterminated/);
    expect(validateCommandPattern('')).toMatch(/empty/);
    expect(validateCommandPattern('A=1')).toMatch(/no command/);
    const c = only('echo x');
    expect(matchCommandPattern("echo 'x", c)).toBe(false);
  });
});
