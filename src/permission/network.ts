// The network scope of a session's sandboxed processes (API.md "Network scope and secrets"): one
// evaluation for every connection a process makes through the session's egress proxy, with the
// rule engine that decides tool calls. `Network(domain:…)` rules govern processes only (a
// `WebFetch(domain:…)` rule never opens a process's connection); the same parser and matcher
// serve both. Stages, the first that decides wins:
//   0. a deny rule of the tenant's policy covers the host           → deny (decided_by "policy")
//   1. a deny rule of the session covers it                         → deny ("rule")
//   2. an ask rule covers it                                        → ask (deny where nobody is asked)
//   3. an allow rule that names Network covers it                   → allow ("rule"); `*` does not
//      open the network: only a rule that names it does
//   4. the mode: `true` → allow; `"rules"` → deny; `"ask"` → ask (deny where nobody is asked)
// A connection that is neither HTTP nor TLS (ssh, git://, a database) is allowed only by a rule
// that names the host *and* the port, or by a person who was asked about exactly that.
import type { PermissionMode } from '../contract/permission.js';
import { allowingRules, firstLenientMatch, type MatchContext, type ParsedRule } from './rules.js';
import type { RuleSet } from './evaluate.js';

/** The tool name of a connection's permission request. */
export const NETWORK_TOOL = 'Network';

/** `sandbox_network`: no network, any public host, only hosts a rule allows, or ask about the rest. */
export type NetworkMode = boolean | 'rules' | 'ask';

/** `any`: before the protocol is known (a tunnel's host is judged as it would be for HTTPS). */
export type NetworkScheme = 'http' | 'https' | 'tcp' | 'any';

export interface NetworkTarget {
  /** Lower-case, without brackets or a trailing dot. */
  host: string;
  port: number;
  scheme: NetworkScheme;
}

export type NetworkVerdict =
  | { behavior: 'allow'; decidedBy: 'rule' | 'mode'; rules: string[]; reason: string }
  | { behavior: 'deny'; decidedBy: 'policy' | 'rule' | 'mode'; rules: string[]; reason: string }
  | { behavior: 'ask'; rules: string[]; reason: string; suggestions: string[] };

export interface NetworkScope {
  mode: NetworkMode;
  rules: RuleSet;
  /** The tenant's `disallowed_tools`. */
  policyDeny?: readonly ParsedRule[];
  /** The session's permission mode: where nobody is asked (dontAsk, auto), an ask is a deny. */
  permissionMode: PermissionMode;
}

/** The rule that would allow a connection to this target, for a person to remember. */
export function networkSuggestion(t: NetworkTarget): string {
  const host = t.host.includes(':') ? `[${t.host}]` : t.host;
  return t.scheme === 'tcp' ? `Network(domain:${host}:${t.port})` : `Network(domain:${host})`;
}

export function describeTarget(t: NetworkTarget): string {
  const what = t.scheme === 'tcp' ? 'a TCP connection' : t.scheme === 'any' ? 'a connection' : t.scheme.toUpperCase();
  return `${what} to ${t.host.includes(':') ? `[${t.host}]` : t.host}:${t.port}`;
}

export function evaluateNetwork(t: NetworkTarget, scope: NetworkScope): NetworkVerdict {
  const what = describeTarget(t);
  if (scope.mode === false) return { behavior: 'deny', decidedBy: 'mode', rules: [], reason: `${what}: the session has no network (sandbox_network: false)` };
  const mc: MatchContext = { toolName: 'Network', subject: { kind: 'url', url: `${t.scheme}://${t.host}:${t.port}`, host: t.host, port: t.port }, root: '/' };
  const banned = scope.policyDeny && scope.policyDeny.length > 0 ? firstLenientMatch(scope.policyDeny, 'deny', mc) : undefined;
  if (banned) return { behavior: 'deny', decidedBy: 'policy', rules: [banned.text], reason: `${what}: denied by the tenant's policy (disallowed_tools "${banned.text}")` };
  const deny = firstLenientMatch(scope.rules.deny, 'deny', mc);
  if (deny) return { behavior: 'deny', decidedBy: 'rule', rules: [deny.text], reason: `${what}: denied by rule "${deny.text}"` };
  const nobody = scope.permissionMode === 'dontAsk' || scope.permissionMode === 'auto';
  const askOrDeny = (reason: string, rules: string[]): NetworkVerdict =>
    nobody
      ? { behavior: 'deny', decidedBy: 'mode', rules, reason: `${reason}; nobody is asked in ${scope.permissionMode} mode` }
      : { behavior: 'ask', rules, reason, suggestions: [networkSuggestion(t)] };
  const ask = firstLenientMatch(scope.rules.ask, 'ask', mc);
  if (ask) return askOrDeny(`${what}: rule "${ask.text}" asks`, [ask.text]);
  // Only rules that name Network open it: `*` in allowed_tools is not a network scope.
  const named = scope.rules.allow.filter((r) => r.tool === 'Network');
  const allowing = allowingRules(named, mc);
  const covering = allowing?.filter((r) => t.scheme !== 'tcp' || r.domain?.port !== undefined) ?? [];
  if (covering.length > 0) return { behavior: 'allow', decidedBy: 'rule', rules: covering.map((r) => r.text), reason: `${what}: allowed by rule "${covering[0]!.text}"` };
  const tcpNote = t.scheme === 'tcp' && allowing ? ` (rule "${allowing[0]!.text}" allows HTTP and HTTPS only: another protocol needs a rule that names the port, ${networkSuggestion(t)})` : '';
  switch (scope.mode) {
    case true:
      if (t.scheme === 'tcp') {
        return { behavior: 'deny', decidedBy: 'mode', rules: [], reason: `${what}: only HTTP and HTTPS leave the sandbox unless a rule names the host and port (${networkSuggestion(t)})` };
      }
      return { behavior: 'allow', decidedBy: 'mode', rules: [], reason: `${what}: any public host (sandbox_network: true)` };
    case 'rules':
      return { behavior: 'deny', decidedBy: 'mode', rules: [], reason: `${what}: no rule allows it (sandbox_network: "rules"; add ${networkSuggestion(t)})${tcpNote}` };
    default:
      return askOrDeny(`${what}: no rule decides it (sandbox_network: "ask")${tcpNote}`, []);
  }
}
