// The previews the permission stages make themselves, for a person asked to allow a call: a
// command line split into its parts, each judged alone by the rules (which part made the call
// ask), and where a URL or a connection goes. A tool with a preview of its own (file edits, MCP
// tools, plans) makes it itself.
import { isIP } from 'node:net';
import type { CommandPreview, PermissionPreview } from '../contract/preview.js';
import { PREVIEW_MAX_CHARS } from '../contract/preview.js';
import type { RuleSet } from './evaluate.js';
import { allowingRules, firstLenientMatch, type MatchContext } from './rules.js';
import type { SimpleCommand } from './shell/types.js';
import type { RuleSubject } from './subject.js';

const MAX_PARTS = 200;
const MAX_PART_CHARS = 2_000;
const MAX_DANGERS = 20;

const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…` : s);

/** The preview of a call whose subject is a command line or a URL; null for other subjects. */
export function subjectPreview(toolName: string, subject: RuleSubject, rules: RuleSet, root: string, commandLine: string, reason: string): PermissionPreview | null {
  if (subject.kind === 'command') return commandPreview(toolName, subject, rules, root, commandLine, reason);
  if (subject.kind === 'url') return urlPreview(subject.url, subject.host, subject.port);
  return null;
}

function commandPreview(toolName: string, subject: Extract<RuleSubject, { kind: 'command' }>, rules: RuleSet, root: string, commandLine: string, reason: string): CommandPreview {
  const a = subject.analysis;
  const base = { kind: 'command' as const, command: cut(commandLine, PREVIEW_MAX_CHARS), reason };
  if (!a.ok) return { ...base, analysed: false, reason: `${reason} (the line could not be analysed: ${a.reason})`, parts: [], redirects: [] };
  const seen = new Set<string>();
  const parts: CommandPreview['parts'] = [];
  for (const cmd of a.commands) {
    if (seen.has(cmd.text)) continue;
    seen.add(cmd.text);
    if (parts.length >= MAX_PARTS) break;
    parts.push(partOf(toolName, cmd, rules, root));
  }
  return {
    ...base,
    analysed: true,
    parts,
    redirects: a.redirects.slice(0, MAX_PARTS).map((r) => ({ op: r.op, target: r.target === null ? null : cut(r.target, MAX_PART_CHARS), writes: r.writes })),
  };
}

/** One part judged alone: its deny, ask or allow rule, or that it only reads. */
function partOf(toolName: string, cmd: SimpleCommand, rules: RuleSet, root: string): CommandPreview['parts'][number] {
  const subject: RuleSubject = { kind: 'command', analysis: { ok: true, commands: [cmd], redirects: [], readOnly: cmd.readOnly } };
  const mc: MatchContext = { toolName, subject, root };
  const base = {
    command: cut(cmd.text, MAX_PART_CHARS),
    read_only: cmd.readOnly,
    nested: cmd.nested,
    dangers: cmd.dangers.slice(0, MAX_DANGERS).map((d) => cut(d.description, 200)),
  };
  const deny = firstLenientMatch(rules.deny, 'deny', mc);
  if (deny) return { ...base, verdict: 'deny', decided_by: 'rule', rule: deny.text, asks: true };
  const ask = firstLenientMatch(rules.ask, 'ask', mc);
  if (ask) return { ...base, verdict: 'ask', decided_by: 'rule', rule: ask.text, asks: true };
  const allow = cmd.readOnly ? null : allowingRules(rules.allow, mc);
  if (allow) return { ...base, verdict: 'allow', decided_by: 'rule', rule: allow.map((r) => r.text).join(', '), asks: false };
  if (cmd.readOnly) return { ...base, verdict: 'allow', decided_by: 'read_only', asks: false };
  return { ...base, verdict: 'ask', decided_by: 'none', asks: true };
}

/** Where a URL or a connection goes; a name is never looked up before the approval. */
export function urlPreview(url: string | undefined, host: string, port: number | undefined, scheme = 'tcp'): PermissionPreview {
  let shownUrl: string | undefined;
  let p = port ?? null;
  if (url !== undefined) {
    try {
      const u = new URL(url);
      scheme = u.protocol.replace(/:$/, '');
      u.username = '';
      u.password = '';
      shownUrl = cut(u.toString(), 4096);
      if (p === null) p = u.port ? Number(u.port) : scheme === 'https' ? 443 : scheme === 'http' ? 80 : null;
    } catch {
      shownUrl = undefined;
    }
  }
  return { kind: 'network', ...(shownUrl !== undefined ? { url: shownUrl } : {}), scheme, host, port: p, address: isIP(host) !== 0 ? host : null };
}
