// Permission rules: one parser for every place rules come from (allowed_tools,
// disallowed_tools, ask_rules, session rules, `remember`), and the matching of one rule
// against one call's subject (subject.ts). Deny and ask match leniently (a rule must not be
// dodged); allow matches strictly (a rule must not be widened).
//
// Syntax:
//   *                          every tool
//   Name                       one tool by name (mcp__server__tool too)
//   mcp__server__*, mcp__server every tool of one MCP server (server names have no `__`)
//   Bash(<command pattern>)    each simple command of a command line (shell.ts); also applies
//                              to ShellWrite, whose completed lines are command lines too
//   Read(<path glob>)          files and directories read: Read, LS, Glob, Grep
//   Edit(<path glob>)          files changed: Write, Edit, MultiEdit
//   Write|MultiEdit|LS|Glob|Grep(<path glob>)   the same, for that one tool only
//   WebFetch(domain:host)      a URL's host; `domain:*.example.com` matches subdomains only;
//                              `domain:host:8443` only that port (none: any port)
//   Network(domain:host)       the same, for connections of sandboxed processes (sandbox_network);
//                              a rule allows the one it names: WebFetch rules never open a process's
//                              connection, nor Network rules a WebFetch
// Path globs are gitignore-style: relative to the workspace root unless they start with `/`
// (absolute); `./x` is anchored at the root; no other `/` but a trailing one → the name at any depth; `**` crosses directories; a
// glob that matches a directory covers everything below it. They are matched against the
// path with symlinks resolved (and, for deny and ask, against the path as written too).
import path from 'node:path';
import { compileIgnoreGlob, globCovers, type IgnoreGlob } from '../glob/match.js';
import { GlobSyntaxError } from '../glob/pattern.js';
import type { SimpleCommand } from './shell.js';
import { matchCommandPattern, parseCommandPattern, PatternIndex, type CommandPattern } from './shell/pattern.js';
import type { RuleSubject, SubjectPath } from './subject.js';
import { hostMatches, parseDomain, type DomainPattern } from '../egress/domain.js';

export { hostMatches, parseDomain, type DomainPattern };

export type RuleBehavior = 'allow' | 'deny' | 'ask';

export interface PathGlob {
  absolute: boolean;
  glob: IgnoreGlob;
}

export interface ParsedRule {
  /** The rule string as written. */
  text: string;
  /** `*`, an exact tool name, or `mcp__server__*`. */
  tool: string;
  specifier: string | null;
  kind: 'name' | 'command' | 'path' | 'domain' | 'label';
  /** The command pattern of a `Bash(...)` rule, parsed once here. */
  command?: CommandPattern;
  path?: PathGlob;
  domain?: DomainPattern;
  /** The name of a `Skill(...)` rule: exact, or a prefix ending in `*`. */
  label?: string;
}

/** Tools whose rules name a host (`domain:`). */
export const DOMAIN_RULE_TOOLS = new Set(['WebFetch', 'Network']);

export type RuleParse = { ok: true; rule: ParsedRule } | { ok: false; error: string };

const TOOL_NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;
const MCP_SERVER_WILDCARD = /^mcp__[A-Za-z0-9_-]+__\*$/;

/** Tools whose rules take a path glob; `Read` and `Edit` also name a family of tools. */
export const PATH_RULE_TOOLS = new Set(['Read', 'Edit', 'Write', 'MultiEdit', 'LS', 'Glob', 'Grep', 'Memory']);
/** Tools whose rules name one thing the call uses (`Skill(name)`). */
export const LABEL_RULE_TOOLS = new Set(['Skill']);
const LABEL = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}\*?$|^\*$/;
/** Tools a `Read(...)` rule covers. */
export const READ_FAMILY = new Set(['Read', 'LS', 'Glob', 'Grep']);
/** Tools an `Edit(...)` rule covers. */
export const EDIT_FAMILY = new Set(['Edit', 'Write', 'MultiEdit']);
/** Tools whose subject is a command line (a `Bash(...)` rule covers them). */
export const COMMAND_TOOLS = new Set(['Bash', 'ShellWrite']);

const SPECIFIER_TOOLS = 'Bash, Read, Edit, Write, MultiEdit, LS, Glob, Grep, Memory, WebFetch, Network and Skill';

export function parseRule(text: string): RuleParse {
  const s = text.trim();
  if (s === '') return { ok: false, error: 'empty rule' };
  if (s === '*') return { ok: true, rule: { text, tool: '*', specifier: null, kind: 'name' } };
  const open = s.indexOf('(');
  if (open === -1) {
    if (MCP_SERVER_WILDCARD.test(s)) return { ok: true, rule: { text, tool: s, specifier: null, kind: 'name' } };
    if (!TOOL_NAME.test(s)) {
      return {
        ok: false,
        error: s.includes('*')
          ? `"${s}" is not a tool name: a wildcard is only "*" (every tool) or "mcp__<server>__*"`
          : `"${s}" is not a tool name (letters, digits, _ and -)`,
      };
    }
    return { ok: true, rule: { text, tool: s, specifier: null, kind: 'name' } };
  }
  const name = s.slice(0, open);
  if (!s.endsWith(')')) return { ok: false, error: `"${s}" has "(" without a closing ")" at the end` };
  if (!TOOL_NAME.test(name)) return { ok: false, error: `"${name}" is not a tool name` };
  const specifier = s.slice(open + 1, -1);
  if (specifier.trim() === '') return { ok: false, error: `"${s}" has an empty specifier; write "${name}" for the whole tool` };
  let depth = 0;
  for (const c of specifier) {
    if (c === '(') depth++;
    else if (c === ')' && --depth < 0) break;
  }
  if (depth !== 0) return { ok: false, error: `"${s}" has unbalanced parentheses` };

  const base = { text, tool: name, specifier };
  if (name === 'Bash') {
    const command = parseCommandPattern(specifier);
    if (typeof command === 'string') return { ok: false, error: `"${s}": invalid command pattern: ${command}` };
    return { ok: true, rule: { ...base, kind: 'command', command } };
  }
  if (PATH_RULE_TOOLS.has(name)) {
    const compiled = compilePathGlob(specifier);
    if (typeof compiled === 'string') return { ok: false, error: `"${s}": invalid path glob: ${compiled}` };
    return { ok: true, rule: { ...base, kind: 'path', path: compiled } };
  }
  if (DOMAIN_RULE_TOOLS.has(name)) {
    const domain = parseDomain(specifier);
    if (typeof domain === 'string') return { ok: false, error: `"${s}": ${domain}` };
    return { ok: true, rule: { ...base, kind: 'domain', domain } };
  }
  if (LABEL_RULE_TOOLS.has(name)) {
    const label = specifier.trim();
    if (!LABEL.test(label)) return { ok: false, error: `"${s}": "${label}" is not a name (letters, digits, _ . : -, optionally ending in *)` };
    return { ok: true, rule: { ...base, kind: 'label', label } };
  }
  return { ok: false, error: `"${s}": ${name} takes no specifier (rules with one exist for ${SPECIFIER_TOOLS}); write "${name}" for the whole tool` };
}

function compilePathGlob(spec: string): PathGlob | string {
  if (spec.includes('\0')) return 'contains a NUL byte';
  if (spec.startsWith('~')) return 'home-relative paths are not supported; write a path relative to the workspace or an absolute one';
  if (spec.startsWith('!')) return 'a rule cannot be negated; write a separate allow, ask or deny rule';
  const absolute = spec.startsWith('/');
  // `./name` anchors at the workspace root (a bare `name` matches at any depth).
  const dotAnchored = spec.startsWith('./');
  let g = spec;
  while (g.startsWith('./')) g = g.slice(2);
  if (g === '.' || g === '') g = '**';
  const parts = g.split('/');
  if (parts.includes('..')) return '".." is not allowed; write an absolute path instead';
  // compileIgnoreGlob anchors a glob containing `/` at the base and drops a leading `/`;
  // absolute globs are matched against the absolute path without its leading `/`. (Not the
  // `ignore` package: it refuses absolute paths and the empty one (the workspace root), has no
  // `{a,b}`, and caches every path it is asked about, which would be every entry the Glob,
  // Grep and LS walks meet while the session's rules live; see src/glob/match.ts.)
  try {
    return { absolute, glob: compileIgnoreGlob(absolute || dotAnchored ? `/${g.replace(/^\/+/, '')}` : g) };
  } catch (err) {
    if (err instanceof GlobSyntaxError) return err.problem;
    throw err;
  }
}

/** Parses every rule; the errors name each bad rule and its field. */
export function parseRules(field: string, texts: readonly string[]): { rules: ParsedRule[]; problems: string[] } {
  const rules: ParsedRule[] = [];
  const problems: string[] = [];
  for (const [i, text] of texts.entries()) {
    const r = parseRule(text);
    if (r.ok) rules.push(r.rule);
    else problems.push(`${field}[${i}]: invalid rule ${JSON.stringify(text)}: ${r.error}`);
  }
  return { rules, problems };
}

// ────────────────────────────────────────────────────────────────────────────────────────────
// Matching

export function nameMatches(pattern: string, name: string): boolean {
  if (pattern === '*') return true;
  // `mcp__server` names a whole server: its tools are `mcp__server__<tool>`.
  if (pattern.startsWith('mcp__') && !pattern.slice(5).includes('__')) return name === pattern || name.startsWith(`${pattern}__`);
  if (pattern.endsWith('*')) return name.startsWith(pattern.slice(0, -1));
  return pattern === name;
}

/** Does a rule with a specifier apply to this tool at all (before looking at arguments)? */
function specifierApplies(rule: ParsedRule, toolName: string, subject: RuleSubject): boolean {
  switch (rule.kind) {
    case 'command':
      return subject.kind === 'command' && COMMAND_TOOLS.has(toolName);
    case 'path':
      if (subject.kind !== 'paths') return false;
      if (rule.tool === 'Read') return subject.access === 'read' && READ_FAMILY.has(toolName);
      if (rule.tool === 'Edit') return subject.access === 'edit' && EDIT_FAMILY.has(toolName);
      return rule.tool === toolName;
    case 'domain':
      return subject.kind === 'url' && rule.tool === toolName;
    case 'label':
      return subject.kind === 'label' && rule.tool === toolName;
    case 'name':
      return false;
  }
}

/** Relative rules match inside the workspace only; absolute rules match the absolute path. */
export function pathGlobMatches(g: PathGlob, abs: string, isDir: boolean, root: string): boolean {
  if (g.absolute) return globCovers(g.glob, abs.slice(1), isDir);
  if (abs === root) return g.glob.matchesBase;
  if (!abs.startsWith(root + path.sep)) return false;
  return globCovers(g.glob, abs.slice(root.length + 1), isDir);
}

function labelMatches(pattern: string, label: string): boolean {
  return pattern.endsWith('*') ? label.startsWith(pattern.slice(0, -1)) : pattern === label;
}

function commandMatches(rule: ParsedRule, cmd: SimpleCommand, behavior: RuleBehavior): boolean {
  return matchCommandPattern(rule.command!, cmd, behavior);
}

export interface MatchContext {
  toolName: string;
  subject: RuleSubject;
  /** The workspace root (real path) relative path globs are anchored at. */
  root: string;
}

// Command rules are indexed (PatternIndex: by program name and a literal word), and a line's
// identical commands are matched once: matching stays linear in the commands of a line times the
// rules that could match them (a line runs at most MAX_COMMANDS commands).
const indexes = new WeakMap<readonly ParsedRule[], PatternIndex>();

function commandIndex(rules: readonly ParsedRule[]): PatternIndex {
  let idx = indexes.get(rules);
  if (!idx) {
    idx = new PatternIndex(rules.flatMap((r, id) => (r.kind === 'command' ? [{ id, pattern: r.command! }] : [])));
    indexes.set(rules, idx);
  }
  return idx;
}

/** The commands of a line without repeats (their matching does not depend on where they are). */
function distinctCommands(commands: readonly SimpleCommand[]): SimpleCommand[] {
  const seen = new Set<string>();
  return commands.filter((c) => {
    const key = `${c.openArgs ? 1 : 0}${c.text}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * Deny and ask: the first rule that matches any part of the call (any command of a line, the
 * path as written or as resolved). An unanalysable command line matches no command rule: the
 * Bash tool asks about such a line itself, so it never runs unasked.
 */
export function firstLenientMatch(rules: readonly ParsedRule[], behavior: 'deny' | 'ask', c: MatchContext): ParsedRule | undefined {
  const s = c.subject;
  let best = rules.findIndex((rule) => {
    if (rule.kind === 'name') return nameMatches(rule.tool, c.toolName);
    if (rule.kind === 'command' || !specifierApplies(rule, c.toolName, s)) return false;
    switch (s.kind) {
      case 'paths':
        return s.paths.some((p) => pathGlobMatches(rule.path!, p.real, p.isDir, c.root) || pathGlobMatches(rule.path!, p.lexical, p.isDir, c.root));
      case 'url':
        return hostMatches(rule.domain!, s.host, s.port);
      case 'label':
        return labelMatches(rule.label!, s.label);
      default:
        return false;
    }
  });
  if (best === -1) best = rules.length;
  if (s.kind === 'command' && s.analysis.ok && COMMAND_TOOLS.has(c.toolName)) {
    const idx = commandIndex(rules);
    for (const cmd of distinctCommands(s.analysis.commands)) {
      for (const i of idx.candidates(cmd, behavior)) {
        if (i >= best) break;
        if (commandMatches(rules[i]!, cmd, behavior)) {
          best = i;
          break;
        }
      }
    }
  }
  return rules[best];
}

/**
 * Allow: the rules that together allow every part of the call, or null when some part is not
 * allowed. A name rule allows the whole call. For a command line, each simple command must be
 * read-only or allowed by a command rule (each part may be allowed by a different rule), no
 * redirect may write, and the line must have been fully analysed. Every path must be allowed
 * by its resolved location.
 */
export function allowingRules(rules: readonly ParsedRule[], c: MatchContext): ParsedRule[] | null {
  const byName = rules.find((r) => r.kind === 'name' && nameMatches(r.tool, c.toolName));
  if (byName) return [byName];
  const s = c.subject;
  const applicable = rules.filter((r) => r.kind !== 'name' && specifierApplies(r, c.toolName, s));
  if (applicable.length === 0) return null;
  const used = new Set<ParsedRule>();
  const cover = (test: (r: ParsedRule) => boolean): boolean => {
    const r = applicable.find(test);
    if (r) used.add(r);
    return r !== undefined;
  };
  switch (s.kind) {
    case 'command': {
      const a = s.analysis;
      if (!a.ok || a.redirects.some((r) => r.writes)) return null;
      let needed = false;
      const idx = commandIndex(rules);
      for (const cmd of distinctCommands(a.commands)) {
        if (cmd.readOnly) continue;
        needed = true;
        const i = idx.candidates(cmd, 'allow').find((k) => commandMatches(rules[k]!, cmd, 'allow'));
        if (i === undefined) return null;
        used.add(rules[i]!);
      }
      if (!needed) return null; // read-only lines are allowed by the read-only stage, not a rule
      break;
    }
    case 'paths':
      if (s.paths.length === 0) return null;
      for (const p of s.paths) if (!cover((r) => pathGlobMatches(r.path!, p.real, p.isDir, c.root))) return null;
      break;
    case 'url':
      if (!cover((r) => hostMatches(r.domain!, s.host, s.port))) return null;
      break;
    case 'label':
      if (!cover((r) => labelMatches(r.label!, s.label))) return null;
      break;
    default:
      return null;
  }
  return [...used];
}

/** Does any path rule in `rules` deny reading `absReal` (used to leave entries out of searches)? */
export function readDenyRule(rules: readonly ParsedRule[], toolName: string, absReal: string, isDir: boolean, root: string): ParsedRule | undefined {
  return rules.find(
    (r) =>
      r.kind === 'path' &&
      (r.tool === 'Read' ? READ_FAMILY.has(toolName) : r.tool === toolName) &&
      pathGlobMatches(r.path!, absReal, isDir, root),
  );
}
