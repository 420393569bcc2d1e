// A session's network scope and secrets as its egress proxy consults them: each connection is
// evaluated with the session's rules, mode and tenant policy as in force (permission/network.ts),
// and one no rule decides in an `"ask"` session becomes a permission request (`tool: "Network"`)
// through the one broker, in the turn of the call whose process connects, while the connection
// waits. Connections to the same host share one request; a person's answer holds for that call
// (its later connections to the host are not asked again); `remember` keeps a rule for the session.
import { urlPreview } from '../permission/preview.js';
import type { Secrets } from '../contract/secrets.js';
import { TurnStop } from '../interaction/stop.js';
import type { ApprovalAnswer } from '../interaction/kinds.js';
import { evaluateNetwork, type NetworkMode, type NetworkTarget, type NetworkVerdict } from '../permission/network.js';
import { inputDigest } from '../pipeline/exec-one.js';
import type { ConnectionOrigin, NetworkScope, Precheck, ProxyDecision } from '../sandbox/net-proxy.js';
import { bindSecrets, type SecretBinding } from '../sandbox/net/secrets.js';
import type { SessionRecord } from '../store/store.js';
import type { SessionSettings } from './settings.js';
import type { TurnRunner } from './turn.js';

/** Hosts waiting for a person at once, per session; more are refused. */
export const MAX_WAITING_HOSTS = 32;
/** Answers a call keeps (host and protocol per call). */
const MAX_CALL_ANSWERS = 1024;

export interface SessionNetworkDeps {
  sessionId: string;
  settings: () => SessionSettings;
  activeTurn: () => TurnRunner | null;
  operatorSecrets?: Secrets;
  record: SessionRecord;
}

export interface SessionNetwork {
  scope: NetworkScope;
  secrets(): readonly SecretBinding[];
}

export function sessionNetwork(d: SessionNetworkDeps): SessionNetwork {
  /** Requests waiting for a person, by host: the connections that wait on each (the last one gone cancels it). */
  const waiting = new Map<string, { answer: Promise<ProxyDecision>; holders: number; stop: AbortController }>();
  const answered = new Map<string, ProxyDecision>();

  const verdict = (t: NetworkTarget, origin: ConnectionOrigin): NetworkVerdict => {
    const settings = d.settings();
    const ctx = settings.permission();
    const mode = settings.session.sandbox_network as NetworkMode;
    // An MCP server or command hook that asked for the network has it under the session's scope;
    // in a session without one, any public host (deny rules and the policy still apply).
    const effective = mode === false && (origin.kind === 'mcp' || origin.kind === 'hook') ? true : mode;
    return evaluateNetwork(t, { mode: effective, rules: ctx.rules, ...(ctx.policyDeny ? { policyDeny: ctx.policyDeny } : {}), permissionMode: ctx.mode });
  };

  /** One more connection waits on `entry` until it is answered or `gone` aborts. */
  const hold = (entry: { answer: Promise<ProxyDecision>; holders: number; stop: AbortController }, gone: AbortSignal): Promise<ProxyDecision> => {
    entry.holders++;
    const release = () => {
      if (--entry.holders === 0) entry.stop.abort(new TurnStop('no connection waits for this answer any more (the process ended or gave up)', 'cancel'));
    };
    if (gone.aborted) release();
    else gone.addEventListener('abort', release, { once: true });
    return entry.answer.finally(() => gone.removeEventListener('abort', release));
  };

  const ask = (t: NetworkTarget, origin: ConnectionOrigin, v: Extract<NetworkVerdict, { behavior: 'ask' }>, gone: AbortSignal): Promise<ProxyDecision> => {
    const key = `${t.host}|${t.port}|${t.scheme === 'tcp' ? 'tcp' : 'web'}`;
    const callKey = `${origin.toolUseId}|${key}`;
    const known = answered.get(callKey);
    if (known) return Promise.resolve(known);
    const shared = waiting.get(key);
    if (shared) return hold(shared, gone);
    const turn = d.activeTurn();
    if (!turn || !origin.toolUseId || (origin.turnId !== null && turn.turnId !== origin.turnId)) {
      return Promise.resolve({ allow: false, reason: `${v.reason}; nobody can be asked: the call that started this process is not running (add a Network rule)` });
    }
    if (waiting.size >= MAX_WAITING_HOSTS) return Promise.resolve({ allow: false, reason: `${v.reason}; ${MAX_WAITING_HOSTS} hosts already wait for a person` });
    const settings = d.settings();
    const input = { host: t.host, port: t.port, scheme: t.scheme };
    const note = { tool_use_id: origin.toolUseId, tool: 'Network', mode: settings.permission().mode, input_digest: inputDigest(input), input_source: 'call' as const };
    turn.recordDecision({ ...note, behavior: 'ask', decided_by: v.rules.length > 0 ? 'rule' : 'mode', rules: v.rules, reason: v.reason });
    const stop = new AbortController();
    // Through the turn's own asks: PermissionRequest and Notification hooks, the broker, the timeout.
    const answer = turn
      .approve(
        { toolUseId: origin.toolUseId, tool: 'Network', input, reason: v.reason, suggestions: v.suggestions, preview: urlPreview(undefined, t.host, t.port, t.scheme) },
        AbortSignal.any([turn.signal, stop.signal]),
        async () => {
          const again = verdict(t, origin);
          return again.behavior === 'ask' ? null : { behavior: again.behavior, reason: again.reason, decidedBy: again.decidedBy, rules: again.rules };
        },
      )
      .then((answer: ApprovalAnswer): ProxyDecision => {
        const id = answer.permissionId;
        const by = answer.behavior === 'cancelled' ? 'cancel' : answer.by === 'timeout' ? 'timeout' : answer.by === 'rule' ? (answer.verdict?.decidedBy ?? 'rule') : 'person';
        const allow = answer.behavior === 'allow';
        const reason = allow
          ? `${v.reason}: allowed`
          : answer.behavior === 'cancelled'
            ? `${v.reason}: ${answer.reason}`
            : `${v.reason}: refused${answer.message ? ` (${answer.message})` : ''}`;
        turn.recordDecision({ ...note, behavior: allow ? 'allow' : 'deny', decided_by: by, rules: answer.behavior !== 'cancelled' ? (answer.verdict?.rules ?? []) : [], reason, ...(id ? { permission_id: id } : {}) });
        const decision: ProxyDecision = allow ? { allow: true, rules: answer.verdict?.rules ?? [] } : { allow: false, reason };
        if (answered.size >= MAX_CALL_ANSWERS) answered.delete(answered.keys().next().value!);
        answered.set(callKey, decision);
        return decision;
      })
      .finally(() => waiting.delete(key));
    const entry = { answer, holders: 0, stop };
    waiting.set(key, entry);
    return hold(entry, gone);
  };

  let boundFor: unknown;
  let bindings: readonly SecretBinding[] = [];
  return {
    scope: {
      // Whatever the protocol turns out to be, a host the rules refuse for HTTPS is refused.
      precheck: (t, origin): Precheck => {
        const v = verdict({ ...t, scheme: 'any' }, origin);
        if (v.behavior === 'deny') return { refuse: v.reason };
        return { tcp: verdict({ ...t, scheme: 'tcp' }, origin).behavior === 'allow' };
      },
      decide: async (t, origin, gone) => {
        const v = verdict(t, origin);
        if (v.behavior === 'allow') return { allow: true, rules: v.rules };
        if (v.behavior === 'deny') return { allow: false, reason: v.reason };
        return ask(t, origin, v, gone);
      },
    },
    // Made again when the tenant's policy object changes (a reload of the keys file).
    secrets: () => {
      const policy = d.settings().policy();
      if (boundFor !== (policy ?? null)) {
        boundFor = policy ?? null;
        bindings = bindSecrets(d.sessionId, [
          { source: 'operator', secrets: d.operatorSecrets },
          { source: 'tenant', secrets: policy?.source.secrets },
          { source: 'session', secrets: d.record.secrets },
        ]).bindings;
      }
      return bindings;
    },
  };
}
