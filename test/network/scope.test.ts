// The network scope's evaluation (permission/network.ts) and host patterns: every mode, every stage,
// and the cases a rule must not widen (a `*` allow, a WebFetch rule, a rule without a port for TCP).
import { describe, expect, it } from 'vitest';
import { evaluateNetwork, type NetworkMode, type NetworkTarget } from '../../src/permission/network.js';
import { hostMatches, parseDomain } from '../../src/egress/domain.js';
import { parseRules } from '../../src/permission/rules.js';
import type { PermissionMode } from '../../src/contract/permission.js';

function scope(mode: NetworkMode, r: { allow?: string[]; deny?: string[]; ask?: string[]; policy?: string[] } = {}, permissionMode: PermissionMode = 'default') {
  const p = (x: string[] | undefined) => parseRules('r', x ?? []).rules;
  return { mode, rules: { allow: p(r.allow), deny: p(r.deny), ask: p(r.ask) }, policyDeny: p(r.policy), permissionMode };
}
const web = (host: string, port = 443): NetworkTarget => ({ host, port, scheme: 'https' });
const tcp = (host: string, port: number): NetworkTarget => ({ host, port, scheme: 'tcp' });

describe('host patterns', () => {
  it('parses exact, subdomain and port forms, IPv6 in brackets', () => {
    expect(parseDomain('domain:Example.COM.')).toEqual({ host: 'example.com', subdomains: false });
    expect(parseDomain('domain:*.example.com:8443')).toEqual({ host: 'example.com', subdomains: true, port: 8443 });
    expect(parseDomain('domain:[::1]:22')).toEqual({ host: '::1', subdomains: false, port: 22 });
    expect(parseDomain('domain:::1')).toEqual({ host: '::1', subdomains: false });
  });
  it('matches subdomains only with *., and a port only when it names one', () => {
    const sub = parseDomain('domain:*.example.com') as Exclude<ReturnType<typeof parseDomain>, string>;
    expect(hostMatches(sub, 'api.example.com', 443)).toBe(true);
    expect(hostMatches(sub, 'example.com', 443)).toBe(false);
    expect(hostMatches(sub, 'evilexample.com', 443)).toBe(false);
    const port = parseDomain('domain:example.com:8443') as Exclude<ReturnType<typeof parseDomain>, string>;
    expect(hostMatches(port, 'example.com', 8443)).toBe(true);
    expect(hostMatches(port, 'example.com', 443)).toBe(false);
  });
});

describe('evaluateNetwork', () => {
  it('false: nothing, whatever the rules', () => {
    expect(evaluateNetwork(web('a.com'), scope(false, { allow: ['Network(domain:a.com)'] })).behavior).toBe('deny');
  });
  it('true: any host over HTTP(S); TCP only with a rule naming host and port', () => {
    expect(evaluateNetwork(web('a.com'), scope(true))).toMatchObject({ behavior: 'allow', decidedBy: 'mode' });
    expect(evaluateNetwork(tcp('a.com', 22), scope(true))).toMatchObject({ behavior: 'deny', decidedBy: 'mode' });
    expect(evaluateNetwork(tcp('a.com', 22), scope(true, { allow: ['Network(domain:a.com)'] })).behavior).toBe('deny');
    expect(evaluateNetwork(tcp('a.com', 22), scope(true, { allow: ['Network(domain:a.com:22)'] }))).toMatchObject({ behavior: 'allow', rules: ['Network(domain:a.com:22)'] });
    expect(evaluateNetwork(tcp('a.com', 23), scope(true, { allow: ['Network(domain:a.com:22)'] })).behavior).toBe('deny');
  });
  it('"rules": only what an allow rule naming Network covers; `*`, WebFetch rules and the bare name differ as documented', () => {
    expect(evaluateNetwork(web('a.com'), scope('rules', { allow: ['Network(domain:a.com)'] }))).toMatchObject({ behavior: 'allow', decidedBy: 'rule' });
    expect(evaluateNetwork(web('b.com'), scope('rules', { allow: ['Network(domain:a.com)'] })).behavior).toBe('deny');
    expect(evaluateNetwork(web('a.com'), scope('rules', { allow: ['*'] })).behavior).toBe('deny');
    expect(evaluateNetwork(web('a.com'), scope('rules', { allow: ['WebFetch(domain:a.com)'] })).behavior).toBe('deny');
    expect(evaluateNetwork(web('a.com'), scope('rules', { allow: ['Network'] })).behavior).toBe('allow');
    // An address where a rule names a name (and the reverse) is not covered.
    expect(evaluateNetwork(web('93.184.216.34'), scope('rules', { allow: ['Network(domain:a.com)'] })).behavior).toBe('deny');
    expect(evaluateNetwork(web('93.184.216.34'), scope('rules', { allow: ['Network(domain:93.184.216.34)'] })).behavior).toBe('allow');
    expect(evaluateNetwork(web('a.com', 8443), scope('rules', { allow: ['Network(domain:a.com:443)'] })).behavior).toBe('deny');
  });
  it('denies and the tenant policy win in every mode; an ask rule asks even where an allow rule covers', () => {
    for (const mode of [true, 'rules', 'ask'] as const) {
      expect(evaluateNetwork(web('x.evil.com'), scope(mode, { allow: ['Network'], deny: ['Network(domain:*.evil.com)'] }))).toMatchObject({ behavior: 'deny', decidedBy: 'rule' });
      expect(evaluateNetwork(web('evil.com'), scope(mode, { allow: ['Network(domain:evil.com)'], policy: ['Network(domain:evil.com)'] }))).toMatchObject({ behavior: 'deny', decidedBy: 'policy' });
      expect(evaluateNetwork(web('a.com'), scope(mode, { allow: ['Network(domain:a.com)'], ask: ['Network(domain:a.com)'] })).behavior).toBe('ask');
    }
    expect(evaluateNetwork(web('a.com'), scope(true, { policy: ['Network'] })).behavior).toBe('deny');
  });
  it('"ask": undecided hosts ask with the rule to remember; nobody is asked in dontAsk and auto', () => {
    expect(evaluateNetwork(web('a.com'), scope('ask'))).toMatchObject({ behavior: 'ask', suggestions: ['Network(domain:a.com)'] });
    expect(evaluateNetwork(tcp('db.a.com', 5432), scope('ask'))).toMatchObject({ behavior: 'ask', suggestions: ['Network(domain:db.a.com:5432)'] });
    expect(evaluateNetwork(tcp('db.a.com', 5432), scope('ask', { allow: ['Network(domain:db.a.com)'] }))).toMatchObject({ behavior: 'ask' });
    for (const m of ['dontAsk', 'auto'] as const) expect(evaluateNetwork(web('a.com'), scope('ask', {}, m))).toMatchObject({ behavior: 'deny', decidedBy: 'mode' });
    // bypassPermissions does not widen the network scope.
    expect(evaluateNetwork(web('a.com'), scope('ask', {}, 'bypassPermissions')).behavior).toBe('ask');
    expect(evaluateNetwork(web('a.com'), scope('rules', {}, 'bypassPermissions')).behavior).toBe('deny');
  });
});
