// Suggestions: narrow, ready-made rule strings a client can offer as "always allow …" when a
// call is asked about. Each one is a valid rule that, added as an allow rule, covers the part of
// the call it was made for (tested as a property); for a compound command line one suggestion
// per part that needs it, and all of them together cover the line.
import path from 'node:path';
import { EDIT_FAMILY, parseRule } from './rules.js';
import { quoteWord, type CommandAnalysis, type SimpleCommand } from './shell.js';
import { quoteAssignment } from './shell/words.js';
import type { RuleSubject, SubjectPath } from './subject.js';

/** Programs whose second word selects what they do (`git push`, `cargo build`). */
const SUBCOMMAND_PROGRAMS = new Set([
  'git', 'npm', 'pnpm', 'yarn', 'bun', 'deno', 'npx', 'cargo', 'go', 'docker', 'podman', 'kubectl', 'helm', 'gh',
  'pip', 'pip3', 'uv', 'poetry', 'make', 'terraform', 'systemctl', 'apt', 'apt-get', 'brew', 'mvn', 'gradle',
  'dotnet', 'rustup', 'composer', 'bundle', 'rake', 'mix', 'swift', 'zig', 'cmake', 'pytest', 'tox', 'nix',
]);
/** `npm run test`: the script name is the third word. */
const RUNNER_VERBS = new Set(['run', 'run-script', 'exec', 'x', 'test']);

function valid(rules: string[]): string[] {
  return [...new Set(rules)].filter((r) => parseRule(r).ok);
}

/** How many leading words name what a command does. */
function prefixLength(cmd: SimpleCommand): number {
  const argv = cmd.argv;
  let want = 1;
  const name = path.basename(argv[0] ?? '');
  if (SUBCOMMAND_PROGRAMS.has(name)) want = 2;
  if (['npm', 'pnpm', 'yarn', 'bun'].includes(name) && RUNNER_VERBS.has(argv[1] ?? '')) want = 3;
  let n = 0;
  while (n < want && n < argv.length && !cmd.dynamic[n] && (n === 0 || !argv[n]!.startsWith('-'))) n++;
  return Math.max(n, 1);
}

function commandSuggestions(a: CommandAnalysis): string[] {
  if (!a.ok || a.redirects.some((r) => r.writes)) return []; // no rule could allow it
  const parts = a.commands.filter((c) => !c.readOnly);
  const out: string[] = [];
  for (const cmd of parts) {
    if (cmd.dynamic[0]) return []; // the command name is not known: nothing narrow to offer
    // A rule must spell out every word that writes or runs code (shell/pattern.ts): the prefix
    // reaches the last of them, and a danger in a run-time word cannot be spelled out at all.
    const lastDanger = Math.max(-1, ...cmd.dangers.map((d) => d.word));
    if (lastDanger >= cmd.argv.length || cmd.dangers.some((d) => cmd.dynamic[d.word])) return [];
    if (cmd.dynamic.slice(0, lastDanger + 1).some(Boolean)) return [];
    // Assignments are quoted as the shell reads them (FOO='a b', not 'FOO=a b', which is a command word).
    const assigns = cmd.assignments.map(quoteAssignment);
    const words = cmd.argv.map(quoteWord);
    const exact = !cmd.openArgs && !cmd.dynamic.some(Boolean);
    const prefix = Math.max(prefixLength(cmd), lastDanger + 1);
    if (parts.length === 1 && exact && words.length > prefix) out.push(`Bash(${[...assigns, ...words].join(' ')})`);
    out.push(prefix >= words.length && exact ? `Bash(${[...assigns, ...words].join(' ')})` : `Bash(${[...assigns, ...words.slice(0, prefix)].join(' ')} *)`);
  }
  return out;
}

/** Escapes glob syntax so a file name is matched literally. */
function escapeGlob(s: string): string {
  return s.replace(/[*?[\]{}\\]/g, '\\$&');
}

/** `Edit(...)` rules cover the file-edit tools; another path tool (Memory) is named itself. */
function editSuggestions(paths: SubjectPath[], root: string, rule: string): string[] {
  const out: string[] = [];
  for (const p of paths) {
    if (p.real.startsWith(root + path.sep)) {
      const rel = p.real.slice(root.length + 1);
      const dir = path.posix.dirname(rel);
      out.push(`${rule}(./${escapeGlob(rel)})`);
      if (dir !== '.') out.push(`${rule}(./${escapeGlob(dir)}/**)`);
    } else {
      out.push(`${rule}(${escapeGlob(p.real)})`);
      const dir = path.posix.dirname(p.real);
      if (rule !== 'Edit' && dir !== '/') out.push(`${rule}(${escapeGlob(dir)}/**)`);
    }
  }
  return out;
}

/** Suggestions for a call the tool did not suggest rules for itself. */
export function suggestRules(toolName: string, subject: RuleSubject, root: string): string[] {
  switch (subject.kind) {
    case 'none':
      return [toolName];
    case 'command':
      return valid(commandSuggestions(subject.analysis));
    case 'paths':
      return subject.access === 'edit' ? valid(editSuggestions(subject.paths, root, EDIT_FAMILY.has(toolName) ? 'Edit' : toolName)) : [];
    case 'url':
      return valid([`${toolName}(domain:${subject.host})`]);
    case 'label':
      return valid([`${toolName}(${subject.label})`]);
  }
}
