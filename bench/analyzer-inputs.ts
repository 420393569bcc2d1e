// Inputs that once made the command analyser slow (or could): the largest command the Bash tool
// accepts (100 000 characters) built from one shape repeated. Shared by bench/analyzer.ts and the
// analyser's limit tests.

export const INPUT_LENGTH = 99_000;

/** `unit` joined by `sep` up to `length` characters. */
export function repeat(unit: string, sep = '\n', length = INPUT_LENGTH): string {
  const n = Math.max(1, Math.floor((length + sep.length) / (unit.length + sep.length)));
  return Array.from({ length: n }, () => unit).join(sep);
}

export interface LargeInput {
  name: string;
  command: string;
}

/** The same length of simple `ls` lines: what any input is measured against. */
export const baseline = (): string => repeat('ls -la src');

export function largeInputs(): LargeInput[] {
  const nested = (open: string, inner: string, close: string, depth: number) => open.repeat(depth) + inner + close.repeat(depth);
  const hereDocsOnOneLine = (): string => {
    let line = 'cat';
    let bodies = '';
    while (line.length + bodies.length < INPUT_LENGTH - 20) {
      line += ' <<E';
      bodies += 'x\nE\n';
    }
    return `${line}\n${bodies}`;
  };
  return [
    { name: 'here-docs, one per line', command: repeat('cat <<E\nx $(ls)\nE') },
    { name: 'here-docs, all on one line', command: hereDocsOnOneLine() },
    { name: 'one command, many words', command: `echo ${repeat('a', ' ')}` },
    { name: 'many short commands', command: repeat('ls', ';') },
    { name: 'long pipeline', command: repeat('ls', ' | ') },
    { name: 'long && chain', command: repeat('ls', ' && ') },
    { name: 'many redirects', command: `ls ${repeat('< a', ' ')}` },
    { name: 'many case items', command: `case x in ${repeat('a) ls;;', ' ', INPUT_LENGTH - 20)} esac` },
    { name: 'many substitutions in a word', command: `echo "${repeat('$(ls)', '', INPUT_LENGTH - 10)}"` },
    { name: 'deep $( ) nesting', command: nested('echo "$(', 'ls', ')"', 300) },
    { name: 'deep ( ) nesting', command: nested('( ', 'ls', ' )', 300) },
    { name: 'deep { } nesting', command: nested('{ ', 'ls', '; }', 300) },
    { name: 'deep if nesting', command: nested('if true; then ', 'ls', '; fi', 300) },
    { name: 'eval of a long script', command: `eval '${repeat('ls', ';', INPUT_LENGTH - 10)}'` },
    { name: 'many exports', command: Array.from({ length: 9000 }, (_, i) => `export V${i}=1`).join(';').slice(0, INPUT_LENGTH) },
    { name: 'many prefix assignments', command: `${repeat('A=1', ' ', 50_000)} bash -c '${repeat('ls', ';', 45_000)}'` },
    { name: 'many options', command: `sort ${repeat('-u', ' ')}` },
    { name: 'many git options', command: `git log ${repeat('--oneline', ' ')}` },
    { name: 'long awk program', command: `awk '${repeat('{print $1}', ';', INPUT_LENGTH - 10)}'` },
    { name: 'long sed script', command: `sed -n '${repeat('s/a/b/g', ';', INPUT_LENGTH - 10)}'` },
    { name: 'many process substitutions', command: `cat ${repeat('<(ls)', ' ')}` },
    { name: 'many globs', command: `ls ${repeat('*?[a]', ' ')}` },
    { name: 'long [[ ]]', command: `[[ ${repeat('-f x', ' && ', INPUT_LENGTH - 10)} ]]` },
  ];
}
