// The read-only judgement is an allowlist of programs and of their options (abbreviations of long
// options resolved as getopt_long does), shell flags and set/shopt options outside a safe list
// make a line unanalysable, and descriptors inherited from outside the line are not read-only.
import { describe, expect, it } from 'vitest';
import { analyzeCommand, isReadOnlyCommand } from '../../src/permission/shell.js';
import { parseArgs, resolveLong, table } from '../../src/permission/shell/getopt.js';
import { literalArgs } from '../../src/permission/shell/words.js';

function readOnlyLine(cmd: string): boolean {
  const r = analyzeCommand(cmd);
  if (!r.ok) throw new Error(`${cmd}: ${r.reason}`);
  return r.readOnly;
}

describe('the getopt parser', () => {
  const t = table({ short: 'abo:x::', long: 'output= output-format= verbose all[=] also', write: ['o', 'output'] });

  it('resolves long options like getopt_long: exact wins, unique prefix, ambiguity', () => {
    expect(resolveLong(t, 'output')).toMatchObject({ name: 'output' });
    expect(resolveLong(t, 'output-f')).toMatchObject({ name: 'output-format' });
    expect(resolveLong(t, 'outp')).toBe('ambiguous');
    expect(resolveLong(t, 'v')).toMatchObject({ name: 'verbose' });
    expect(resolveLong(t, 'al')).toBe('ambiguous');
    expect(resolveLong(t, 'nope')).toBe('unknown');
    expect(resolveLong(table({ long: 'output=', abbreviate: false }), 'outp')).toBe('unknown');
  });

  it('parses clusters, attached and separate values, --, and options after operands', () => {
    const p = parseArgs(t, literalArgs(['-abofile', 'op1', '--verbose', '-o', 'f2', '--', '-a', '--output=x']));
    expect(p.options.map((o) => [o.name, o.value, o.spelling])).toEqual([
      ['-a', null, '-a'],
      ['-b', null, '-ab'],
      ['-o', 'file', '-abo'],
      ['--verbose', null, '--verbose'],
      ['-o', 'f2', '-o'],
    ]);
    expect(p.operands).toEqual([1, 6, 7]);
    expect(p.problems).toEqual([]);
  });

  it('reports unknown options, values given to flags and missing values', () => {
    const p = parseArgs(t, literalArgs(['-q', '--verbose=1', '--output']));
    expect(p.problems.map((x) => x.kind)).toEqual(['unknown', 'unknown', 'missing']);
    expect(parseArgs(table({ short: 'a', permute: false }), literalArgs(['x', '-a'])).operands).toEqual([0, 1]);
  });
});

describe('read-only: every option is on the program’s table, however abbreviated', () => {
  const cases: [string[], boolean][] = [
    // sort: writes with -o/--output (any abbreviation), -T; runs --compress-program
    [['sort', '--outp=F', 'x'], false],
    [['sort', '--o=F', 'x'], false],
    [['sort', '--output', 'F', 'x'], false],
    [['sort', '-ruoF', 'x'], false],
    [['sort', 'x', '-o', 'F'], false],
    [['sort', '-T', '/tmp', 'x'], false],
    [['sort', '--temporary-d=/tmp', 'x'], false],
    [['sort', '--compress-prog=sh', 'x'], false],
    [['sort', '--co=sh', 'x'], false],
    [['sort', '--random-sou=/dev/urandom', 'x'], true],
    [['sort', '--random-s=/dev/urandom', 'x'], false], // ambiguous: --random-sort, --random-source
    [['sort', '-k2,2n', '-t,', 'x'], true],
    [['sort', '--', '-o'], true],
    // file, date, tree, rg, diff, uniq
    [['file', '--compi'], false],
    [['file', '-C', '-m', 'magic'], false],
    [['file', '--preserve-d', 'x'], false],
    [['file', '-bp', 'x'], false],
    [['file', '-b', '--mime-t', 'x'], true],
    [['date', '--s=2020-01-01'], false],
    [['date', '--se', 'now'], false],
    [['date', '-us', 'now'], false],
    [['date', '0101'], false],
    [['date', '-u', '+%F'], true],
    [['date', '--da=yesterday', '+%F'], true],
    [['date', '--d=yesterday'], false], // ambiguous: --date, --debug
    [['tree', '-o', 'out'], false],
    [['tree', '-R', '-H', '.'], false],
    [['tree', '--output=out'], false],
    [['tree', '-L', '2', '-a'], true],
    [['rg', '--pre', 'sh', 'x'], false],
    [['rg', '--pre=sh', 'x'], false],
    [['rg', '--hostname-bin=sh', 'x'], false],
    [['rg', '--pr', 'sh', 'x'], false], // rg does not abbreviate: unknown
    [['rg', '-z', '--no-ignore-vcs', 'x'], true],
    [['diff', '--paginate', 'a', 'b'], false],
    [['diff', '-l', 'a', 'b'], false],
    [['diff', '--to-file=x', 'a'], true],
    [['diff', '--from-file', 'x', 'a'], true],
    [['diff', '-u3', 'a', 'b'], true],
    [['uniq', '-c', 'in', 'out'], false],
    [['uniq', '-c', '--skip-c=2', 'in'], true],
    [['uniq', '--sk=2', 'in'], false], // ambiguous
    // programs once judged by name alone
    [['ls', '--dired', '--hyperlink', '-la'], true],
    [['ls', '--foo'], false],
    [['ls', '--h'], false], // ambiguous
    [['cat', '--show'], false], // ambiguous
    [['cat', '-A', 'x'], true],
    [['du', '--files0-from=list', '-sh'], true],
    [['df', '--out'], true], // --output[=FIELDS] of df only formats
    [['wc', '--files0-from=f'], true],
    [['head', '--byt=5', 'x'], true],
    [['head', '-5', 'x'], true],
    [['tail', '--fo', 'log'], true],
    [['grep', '--file=pats', '-r', '.'], true],
    [['grep', '-3', '-n2', 'x'], true],
    [['grep', '-Q', 'x'], false],
    [['stat', '-c', '%s', 'x'], true],
    [['cut', '-d:', '-f1', '/etc/passwd'], true],
    [['tr', '-d', 'x'], true],
    [['cmp', '--bytes=5', 'a', 'b'], true],
    [['realpath', '--relative-to=/', 'x'], true],
    [['uname', '-a'], true],
    // find primaries
    [['find', '.', '-fprint0', 'f'], false],
    [['find', '.', '-fls', 'f'], false],
    [['find', '.', '-ok', 'rm', '{}', ';'], false],
    [['find', '.', '-foo'], false],
    [['find', '-L', '.', '-newermt', '2020-01-01', '-print0'], true],
    // git
    [['git', 'log', '--output=f'], false],
    [['git', 'log', '--outp=f'], false],
    [['git', 'diff', '--ext-diff'], false],
    [['git', 'show', '--textc'], false],
    [['git', 'diff', '--text'], true], // exact --text, not --textconv
    [['git', 'log', '--no-ext-diff', '--no-textconv'], true],
    [['git', '--config-env=core.pager=P', 'log'], false],
    [['git', '--exec-path=/tmp', 'log'], false],
    [['git', '--paginate', 'log'], false],
    [['git', '--git-dir=/x/.git', 'log'], false],
    [['git', '--work-tree', '/x', 'log'], false],
    [['git', '--no-pager', '-C', 'sub', '-P', 'log', '--oneline', '--graph', '-n', '5'], true],
    [['git', 'diff', '--stat', 'HEAD~1'], true],
    [['git', 'status', '-sb'], true],
    [['git', 'branch', '-vv'], true],
    [['git', 'branch', '-d', 'x'], false],
    [['git', 'branch', '-c', 'a', 'b'], false],
    [['git', 'branch', '--list', 'feat*'], true],
    [['git', 'ls-files', '-o', '--exclude-standard'], true],
    [['git', 'rev-parse', '--show-toplevel'], true],
    [['git', 'log', '--frobnicate'], false],
    [['git', 'grep', 'x'], false],
    [['git', '--version'], true],
    [['git', '--help'], false],
  ];
  it.each(cases)('%j → %s', (argv, expected) => {
    expect(isReadOnlyCommand(argv)).toBe(expected);
  });

  it('a non-literal word keeps a command read-only only when no option of it writes or runs', () => {
    expect(readOnlyLine('grep "$pat" src')).toBe(true);
    expect(readOnlyLine('wc -l $files')).toBe(true);
    expect(readOnlyLine('sort $opts x')).toBe(false);
    expect(readOnlyLine('git log "$range"')).toBe(false);
    expect(readOnlyLine('find . | xargs sort')).toBe(false);
    expect(readOnlyLine('find . | xargs grep -l x')).toBe(true);
    expect(readOnlyLine('find . | xargs uniq')).toBe(false); // a second operand would be written
  });
});

describe('git: an unknown subcommand is a configured alias, and the line is not analysed', () => {
  it.each([
    ['git p', /git p is not a git command/],
    ['git -c alias.p=push p origin', /git p is not a git command/],
    ['git frobnicate', /alias/],
    ['git $SUB', /not a literal word/],
    ['git --bogus status', /git option --bogus is not known/],
    ['ls && git -C repo st', /git st is not a git command/],
  ])('%s', (cmd, reason) => {
    const r = analyzeCommand(cmd);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(reason);
  });

  it('known commands of git and its add-ons are analysed', () => {
    for (const cmd of ['git status', 'git lfs pull', 'git worktree list', 'git -C x --no-pager log', 'git --version']) {
      expect(analyzeCommand(cmd).ok, cmd).toBe(true);
    }
  });
});

describe('shell flags, set and shopt: only the options that leave parsing and startup files alone', () => {
  const unanalysable: [string, RegExp][] = [
    ["bash -kc 'a=b ls'", /bash -k/],
    ["bash -o keyword -c 'ls'", /-o keyword/],
    ["bash -lc 'ls'", /bash -l/],
    ["bash --login -c 'ls'", /--login/],
    ["bash -ic 'ls'", /bash -i/],
    ["bash --debugger -c 'ls'", /--debugger/],
    ["bash --rcfile x -c 'ls'", /--rcfile/],
    ["bash --init-file x -c 'ls'", /--init-file/],
    ["bash -O extglob -c 'ls'", /-O/],
    ["bash -a -c 'ls'", /bash -a/],
    ["bash -H -c 'ls'", /bash -H/],
    ["bash -p -c 'ls'", /bash -p/],
    ["sh -o allexport -c 'ls'", /allexport/],
    ["bash -o histexpand -c 'ls'", /histexpand/],
    ["bash -o vi -c 'ls'", /-o vi/],
    ["zsh -k -c 'ls'", /zsh -k/],
    ["bash -c 'set -k; ls'", /set -k/],
    ['set -a; x=1; ls', /set -a/],
    ['set -o keyword', /keyword/],
    ['set -o vi', /vi/],
    ['set -H', /set -H/],
    ['set -p', /set -p/],
    ['set $OPTS', /not a literal word/],
    ['shopt -s expand_aliases', /expand_aliases/],
    ['shopt -u interactive_comments', /interactive_comments/],
    ['shopt -s extdebug', /extdebug/],
    ['shopt -so keyword', /keyword/],
    ['builtin set -k', /set -k/],
  ];
  it.each(unanalysable)('%s is not analysed', (cmd, reason) => {
    const r = analyzeCommand(cmd);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(reason);
  });

  it.each([
    "bash -ec 'ls'",
    "bash -euxo pipefail -c 'ls'",
    "bash --norc --noprofile -c 'ls'",
    "bash +H -c 'ls'",
    "sh -o errexit -c 'ls'",
    "bash --posix -c 'ls'",
    "bash -r -c 'ls'",
    'set -e',
    'set -euo pipefail',
    'set +H',
    'set +o histexpand',
    'set -- a -k b',
    'shopt -s nullglob globstar',
    'shopt -q extdebug',
    'shopt',
  ])('%s is analysed', (cmd) => {
    expect(analyzeCommand(cmd).ok).toBe(true);
  });
});

describe('descriptors inherited from outside the line', () => {
  const cases: [string, boolean][] = [
    ["echo 'touch X' >&24", true],
    ['echo x 2>&5', true],
    ['echo x 1>&3-', true],
    ['cat <&3', true],
    ['cat 0<&4', true],
    ['cat < /dev/fd/3', true],
    ['echo x > /dev/fd/7', true],
    ['cat < /proc/self/fd/9', true],
    ['cat < /dev/tcp/example.com/80', true],
    ['echo x 3<> f', true],
    ['echo x 3>&1', false],
    ['echo x 3>&-', false],
    ['ls 2>&1', false],
    ['ls >&2', false],
    ['cat <&0', false],
    ['cat 3< f', false],
    ['ls > /dev/fd/1', false],
  ];
  it.each(cases)('%s writes: %s', (cmd, writes) => {
    const r = analyzeCommand(cmd);
    if (!r.ok) throw new Error(r.reason);
    expect(r.redirects.some((x) => x.writes)).toBe(writes);
    expect(r.readOnly).toBe(!writes);
  });

  it('a read-only program given such a path as an argument is not read-only', () => {
    expect(readOnlyLine('cat /dev/fd/5')).toBe(false);
    expect(readOnlyLine('head /proc/self/fd/3')).toBe(false);
    expect(readOnlyLine('cat /dev/fd/0')).toBe(true);
    expect(readOnlyLine('ls /proc/self/fd /dev/fd')).toBe(true); // listing the directories reads no descriptor
  });
});
