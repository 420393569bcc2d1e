// An allow rule covers a command only if it spells out every word that writes or runs something
// (options, script-language constructs, inline code); deny and ask rules see through global
// options and subcommand aliases.
import { describe, expect, it } from 'vitest';
import { analyzeCommand, matchCommandPattern, type PatternBehavior, type SimpleCommand } from '../../src/permission/shell.js';
import { awkProgramDangers } from '../../src/permission/shell/programs/awk.js';
import { sedScriptDangers } from '../../src/permission/shell/programs/sed.js';

function last(cmd: string): SimpleCommand {
  const r = analyzeCommand(cmd);
  if (!r.ok) throw new Error(`${cmd}: ${r.reason}`);
  return r.commands[r.commands.length - 1]!;
}

const match = (pattern: string, cmd: string, behavior: PatternBehavior = 'allow') => matchCommandPattern(pattern, last(cmd), behavior);

describe('allow rules do not cover what a command writes or runs unless they spell it out', () => {
  const cases: [pattern: string, cmd: string, allowed: boolean][] = [
    // awk
    ['awk *', `awk '{system("rm -rf x")}'`, false],
    ['awk *', `awk '{ system ("x") }'`, false],
    ['awk *', `awk '{print > "f"}'`, false],
    ['awk *', `awk '{printf "%s", $1 >> "out"}'`, false],
    ['awk *', `awk '{print $1 > $2}'`, false],
    ['awk *', `awk '{print | "sh"}'`, false],
    ['awk *', `awk 'BEGIN { while (("ls" | getline l) > 0) print l }'`, false],
    ['awk *', `awk 'BEGIN { print "x" |& "cmd" }'`, false],
    ['awk *', `awk '{print "a",\n  "b" > "f"}'`, false],
    ['awk *', `awk '/"/ { system("x") }'`, false],
    ['awk *', `awk 'BEGIN { x = 1 / 2; system("y") }'`, false],
    ['gawk *', `gawk '@load "filefuncs"'`, false],
    ['awk *', `awk 'BEGIN { f = "system"; @f("x") }'`, false],
    ['awk *', `awk 'BEGIN { getline l < "/inet/tcp/0/h/80" }'`, false],
    ['awk *', 'awk -f prog.awk data', false],
    ['awk -f prog.awk *', 'awk -f prog.awk data', true],
    ['awk *', 'awk --load=x "{print}"', false],
    ['awk *', 'awk "$PROG" data', false],
    ['awk *', `awk '{print $1}' data`, true],
    ['awk *', `awk -F: -v n=1 '$1 > n {print ($2 > 3)}' /etc/passwd`, true],
    ['awk *', `awk '/a|b/ {print}'`, true],
    ['awk *', `awk 'BEGIN{print "oops" > "/dev/stderr"}'`, true],
    ['awk *', `awk 'length($0) > 72' f`, true],
    // sed
    ['sed -n *', "sed -n 'w out' f", false],
    ['sed -n *', "sed -n 's/a/b/w out' f", false],
    ['sed -n *', "sed -n 's/a/b/e' f", false],
    ['sed -n *', "sed -n '1e rm x' f", false],
    ['sed -n *', "sed -n '/x/{p;W log\n}' f", false],
    ['sed *', "sed 's/a/b/;Wlog' f", false],
    ['sed *', 'sed -i s/a/b/ f', false],
    ['sed *', 'sed --in-pl s/a/b/ f', false],
    ['sed *', 'sed -ibak s/a/b/ f', false],
    ['sed *', 'sed -f script.sed f', false],
    ['sed *', 'sed "$S" f', false],
    ['sed *', "sed 'k' f", false], // not a sed command: not accounted for
    ['sed -i *', 'sed -i s/a/b/ f', true],
    ['sed -n *', "sed -n '/start/,/end/p' f", true],
    ['sed *', "sed '1r header.txt' f", true],
    ['sed *', "sed -e 'y/abc/xyz/' -e 's|a|b|g' f", true],
    ['sed *', "sed --expression='s/a/b/2;$d' f", true],
    ['sed *', "sed 'w /dev/stdout' f", true],
    ['sed *', "sed -n '$!{h;d};x;G;p' f", true],
    ['sed *', "sed --sandbox 's/a/b/e' f", true],
    // tar
    ['tar -tf *', 'tar -tf a.tar', true],
    ['tar *', 'tar tvf a.tar', true],
    ['tar *', 'tar -tzvf a.tgz --wildcards "*.md"', true],
    ['tar *', 'tar xf a.tar', false],
    ['tar *', 'tar -xf a.tar', false],
    ['tar *', 'tar --extract -f a.tar', false],
    ['tar *', 'tar -cf out.tar src', false],
    ['tar -cf *', 'tar -cf out.tar src', true],
    ['tar -tf *', 'tar -tf a.tar --to-command=sh', false],
    ['tar -tf *', 'tar -tf a.tar --to-com=sh', false],
    ['tar -tf *', 'tar -tf a.tar --checkpoint-action=exec=sh', false],
    ['tar -tf *', 'tar -tf a.tar -I sh', false],
    ['tar *', 'tar --use-comp=sh -tf a.tar', false],
    ['tar -tf *', 'tar -tf a.tar -F x', false],
    ['tar -tf *', 'tar -tf a.tar --rsh-command=x', false],
    ['tar -tf *', 'tar -tf a.tar --index-file=x', false],
    ['tar -tf *', 'tar -tf a.tar -g snap', false],
    ['tar -tf *', 'tar -tf a.tar --remove-files', false],
    ['tar -tf *', 'tar -tf host:a.tar', false],
    ['tar -tf *', 'tar -tf host:a.tar --force-local', true],
    // git
    ['git *', "git -c alias.x='!sh' status", false],
    ['git *', 'git --config-env=core.pager=P log', false],
    ['git *', 'git --exec-path=/tmp status', false],
    ['git *', 'git fetch --upload-pack=x origin', false],
    ['git *', 'git clone -u x url', false],
    ['git *', 'git clone --template=t url', false],
    ['git *', 'git push --receive-pack=x', false],
    ['git *', 'git log --output=f', false],
    ['git *', 'git log --outp=f', false],
    ['git *', 'git diff --ext-diff', false],
    ['git *', 'git diff --textconv', false],
    ['git *', 'git grep --open-files-in-pager x', false],
    ['git *', 'git grep -O x', false],
    ['git *', "git rebase -x 'make' main", false],
    ['git *', 'git rebase --exec=make main', false],
    ['git *', "git difftool -x 'sh -c x'", false],
    ['git *', 'git config alias.st status', false],
    ['git *', 'git config core.pager less', false],
    ['git *', 'git config --global core.hooksPath x', false],
    ['git *', 'git config diff.foo.textconv x', false],
    ['git *', 'git config --rename-section foo alias', false],
    ['git *', "git submodule foreach 'rm -rf .'", false],
    ['git *', 'git bisect run make', false],
    ['git *', 'git filter-branch --tree-filter x', false],
    ['git *', 'git config user.email a@b', true],
    ['git *', 'git push --force origin main', true],
    ['git *', 'git diff --text --stat', true],
    ['git log --output=f *', 'git log --output=f -p', true],
    ['git status', 'git -C dir status', true],
    ['git log *', 'git --no-pager -P --no-optional-locks log -1', true],
    ['git status', 'git --git-dir=x status', false],
    ['git --git-dir=x status', 'git --git-dir=x status', true],
    // option tables
    ['rg *', 'rg --pre sh x', false],
    ['rg --pre sh *', 'rg --pre sh x', true],
    ['sort *', 'sort -o out in', false],
    ['sort *', 'sort --outp=out in', false],
    ['sort *', 'sort -T /tmp in', false],
    ['sort -o *', 'sort -o out in', true],
    ['sort -o* *', 'sort -oout in', true],
    ['sort *', 'sort --compress-program=sh in', false],
    ['sort *', 'sort -u in', true],
    ['date *', 'date -s now', false],
    ['date *', 'date 010100002020', false],
    ['uniq *', 'uniq in out', false],
    ['file *', 'file --compile -m x', false],
    ['find *', 'find . -fprintf out %p', false],
    ['find *', 'find . -delete', false],
    ['find *', 'find . -name x -print', true],
    // non-literal words and run-time arguments that could be such options
    ['sort *', 'sort $OPTS in', false],
    ['grep *', 'grep $OPTS in', true],
    ['sort *', 'xargs sort', false],
    ['grep *', 'xargs grep x', true],
    ['git log *', 'xargs git log', false],
    ['python3 *', 'xargs python3', false],
    ['find *', 'xargs find', false],
    // inline code
    ['python3 *', `python3 -c 'print(1)'`, false],
    ['python3 *', `python3 -Ic 'print(1)'`, false],
    ["python3 -c 'print(1)'", `python3 -c 'print(1)'`, true],
    ['python3 *', 'python3 script.py -c x', true],
    ['python3 *', 'python3 -m http.server', true],
    ['node *', 'node -e x', false],
    ['node *', 'node --eval=x', false],
    ['node *', 'node -pe x', false],
    ['node *', 'node -r ./hook.js app.js', false],
    ['node *', 'node --import ./hook.mjs app.js', false],
    ['node *', 'node --loader ./l.mjs app.js', false],
    ['node *', 'node app.js -e x', true],
    ['perl *', 'perl -e "print 1"', false],
    ['perl *', 'perl -pi -e s/a/b/ f', false],
    ['perl *', 'perl -MPOSIX script.pl', false],
    ['perl *', 'perl script.pl', true],
    ['ruby *', 'ruby -e "puts 1"', false],
    ['ruby *', 'ruby -rsocket x.rb', false],
    ['php *', 'php -r "echo 1;"', false],
    ['php *', 'php -d auto_prepend_file=x a.php', false],
    ['lua *', 'lua -e "print(1)"', false],
    ['bun *', 'bun -e x', false],
    ['deno *', 'deno eval x', false],
    ['deno *', 'deno run main.ts', true],
    // `*` allows everything
    ['*', 'sort -o f', true],
  ];
  it.each(cases)('Bash(%s) allows %s: %s', (pattern, cmd, allowed) => {
    expect(match(pattern, cmd)).toBe(allowed);
  });

  it('every danger says where, what kind and how it is spelled', () => {
    expect(last('sort -ruofile in').dangers).toEqual([{ word: 1, kind: 'write', description: 'sort -o writes a file', spelling: '-ruo' }]);
    expect(last('sort --outp=f').dangers).toMatchObject([{ word: 1, kind: 'write', spelling: '--outp' }]);
    expect(last('python3 -c "x"').dangers).toMatchObject([{ word: 2, kind: 'exec', spelling: 'x' }]);
    expect(last('xargs sort').dangers).toMatchObject([{ word: 1, kind: 'exec', spelling: '' }]);
    expect(last('ls -la').dangers).toEqual([]);
    expect(last('rm -rf x').dangers).toEqual([]); // no table: as before
  });

  it('a read-only command has no dangers, and a command with one is not read-only', () => {
    for (const cmd of ['git log --output=f', 'sort -o f x', 'date -s now', 'find . -delete']) {
      const c = last(cmd);
      expect(c.dangers.length, cmd).toBeGreaterThan(0);
      expect(c.readOnly, cmd).toBe(false);
    }
  });
});

describe('the awk and sed scanners', () => {
  it('awk: regular expressions and strings do not hide or fake dangers', () => {
    expect(awkProgramDangers('$0 ~ /a|b/ { print "x | y > z" }')).toEqual([]);
    expect(awkProgramDangers('{ n = a / b / c } $1 ~ /x/')).toEqual([]);
    expect(awkProgramDangers('{ if (x) /re/ ? y : z; system("q") }')).toEqual(['awk system() runs a shell command']);
    expect(awkProgramDangers('{ print "unterminated }')).toEqual([expect.stringMatching(/could not be scanned/)]);
    expect(awkProgramDangers('{ print > "/dev/stdout" }')).toEqual([]);
  });

  it('sed: the parser accounts for every command or reports a danger', () => {
    expect(sedScriptDangers('s/a/b/g;/x/d;$!N;P;D')).toEqual([]);
    expect(sedScriptDangers('1!G;h;$p')).toEqual([]);
    expect(sedScriptDangers('/a/i\\\ninserted\n/b/a appended')).toEqual([]);
    expect(sedScriptDangers(':a;N;$!ba;s/\\n/ /g')).toEqual([]);
    expect(sedScriptDangers('s/a/b/gw out')).toEqual(['sed s///w writes out']);
    expect(sedScriptDangers('s/a/b')).toEqual([expect.stringMatching(/could not be parsed/)]);
    expect(sedScriptDangers('{p')).toEqual([expect.stringMatching(/unmatched/)]);
  });
});

describe('deny and ask rules see through global options, aliases and interspersed options', () => {
  const cases: [pattern: string, cmd: string, matches: boolean][] = [
    ['git push *', 'git -C repo push', true],
    ['git push *', 'git --git-dir=.git push origin', true],
    ['git push *', 'git --git-dir .git --work-tree . push', true],
    ['git push *', 'git -c x=y -C repo push', true],
    ['git push *', 'git --no-pager push', true],
    ['git push *', 'git -p --namespace=n --bare push', true],
    ['git push *', 'git -C repo status', false],
    ['npm install *', 'npm --prefix x i y', true],
    ['npm install *', 'npm -C x add y', true],
    ['npm install *', 'npm -w pkg install', true],
    ['npm install *', 'npm --global --loglevel=silent in y', true],
    ['npm install *', 'npm --some-unknown-flag value install y', true],
    ['npm install *', 'npm instal y', true],
    ['npm uninstall *', 'npm rm x', true],
    ['npm uninstall *', 'npm un x', true],
    ['npm i *', 'npm install x', true],
    ['npm run *', 'npm rum test', true],
    ['npm run *', 'npm run-script test', true],
    ['npm run deploy *', 'npm urn deploy', true],
    ['npm run *', 'npm test', false],
    ['pnpm remove *', 'pnpm -C x rm y', true],
    ['pnpm install *', 'pnpm --filter web i', true],
    ['yarn add *', 'yarn --cwd x add y', true],
    ['cargo build *', 'cargo +nightly b', true],
    ['cargo build *', 'cargo --config x=1 -Z unstable build', true],
    ['cargo publish *', 'cargo build', false],
    ['terraform apply *', 'terraform -chdir=infra apply', true],
    ['docker run *', 'docker --context prod run img', true],
    ['docker run *', 'docker -H tcp://h -l debug run img', true],
    ['docker run *', 'docker container run img', true],
    ['docker rm *', 'docker ps', false],
    ['kubectl delete *', 'kubectl -n prod delete pod x', true],
    ['kubectl delete *', 'kubectl --context=prod --kubeconfig k delete pod x', true],
    ['kubectl delete pod *', 'kubectl delete -n prod pod x', true],
    ['kubectl delete *', 'kubectl get pods', false],
    ['helm uninstall *', 'helm --kube-context x -n ns uninstall r', true],
    ['make deploy', 'make -C infra -j4 deploy', true],
    ['make deploy', 'make build', false],
  ];
  it.each(cases)('deny Bash(%s) vs %s: %s', (pattern, cmd, matches) => {
    expect(match(pattern, cmd, 'deny')).toBe(matches);
    expect(match(pattern, cmd, 'ask')).toBe(matches);
  });

  it('allow rules do not skip global options that change what runs', () => {
    expect(match('git push *', 'git -c core.sshCommand=x push', 'allow')).toBe(false);
    expect(match('npm install *', 'npm --prefix x install y', 'allow')).toBe(false);
    expect(match('npm install *', 'npm i y', 'allow')).toBe(false);
  });
});
