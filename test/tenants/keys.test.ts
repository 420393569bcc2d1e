// NORMA_API_KEYS_FILE as a whole, the key ring's lookup and tickets' lifetimes, without HTTP;
// and start-up and SIGHUP with a real server process.
import fs from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { parseKeys, KeysFileError, type HookCheck } from '../../src/tenants/keys-file.js';
import { KeyRing, TOKEN_KEY_NAME } from '../../src/tenants/key-ring.js';
import { TicketBook, MAX_TICKETS_PER_KEY } from '../../src/tenants/tickets.js';
import { DomainError } from '../../src/errors.js';
import { clampMode, expandScopes, modeWithin, MODE_ORDER } from '../../src/contract/tenant.js';
import { PERMISSION_MODES } from '../../src/contract/permission.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { keysFile, keysJson, newKey, sha256, startWithKeys } from '../helpers/tenants.js';

const noHooks: HookCheck = async () => [];

async function problemsOf(text: string, checkHooks: HookCheck = noHooks): Promise<string[]> {
  try {
    await parseKeys('keys.json', text, checkHooks);
  } catch (err) {
    if (err instanceof KeysFileError) return err.problems;
    throw err;
  }
  return [];
}

const entry = (over: Record<string, unknown> = {}) => ({ key_sha256: sha256(newKey('x')), tenant: 'acme', scopes: ['read'], ...over });

describe('the keys file', () => {
  it('loads keys with their tenants, expanded scopes, names and policies', async () => {
    const [a, b] = [newKey('a'), newKey('b')];
    const loaded = await parseKeys(
      'keys.json',
      keysJson([
        { key: a, tenant: 'acme', scopes: ['approve'], name: 'approvals-ui', policy: { max_sessions: 3, disallowed_tools: ['Bash(rm *)'] } },
        { key: b, tenant: 'acme', scopes: ['write'] },
      ]),
      noHooks,
    );
    expect(loaded.keys.map((k) => [k.name, k.tenant, [...k.access]])).toEqual([
      ['approvals-ui', 'acme', ['approve', 'read']],
      [`key_${sha256(b).slice(0, 12)}`, 'acme', ['write', 'approve', 'read']],
    ]);
    const policy = loaded.policies.get('acme')!;
    expect(policy.public).toMatchObject({ max_sessions: 3, disallowed_tools: ['Bash(rm *)'], max_permission_mode: null });
    expect(policy.deny.map((r) => r.text)).toEqual(['Bash(rm *)']);
  });

  it('refuses the whole file for any problem, naming the entry and field', async () => {
    const dup = sha256('same');
    const cases: [string, unknown, RegExp][] = [
      ['not JSON', '{', /not JSON/],
      ['an object, not a list', { keys: [] }, /Expected array/],
      ['a typo in the policy', [entry({ policy: { max_session: 3 } })], /\/0\/policy\/max_session: Unexpected property \(known: max_permission_mode, disallowed_tools/],
      ['a typo in the entry', [entry({ scope: ['read'] })], /\/0\/scope: Unexpected property \(known: key_sha256, tenant, scopes/],
      ['an unknown scope', [entry({ scopes: ['root'] })], /\/0\/scopes\/0/],
      ['no scope', [entry({ scopes: [] })], /\/0\/scopes/],
      ['a key instead of its hash', [entry({ key_sha256: 'my-secret-key' })], /\/0\/key_sha256/],
      ['a bad tenant', [entry({ tenant: '../etc' })], /\/0\/tenant/],
      ['a bad expiry', [entry({ expires_at: 'tomorrow' })], /\/0\/expires_at/],
      ['a mode that does not exist', [entry({ policy: { max_permission_mode: 'yolo' } })], /max_permission_mode/],
      ['a zero limit', [entry({ policy: { requests_per_minute: 0 } })], /requests_per_minute/],
      ['the same key twice', [entry({ key_sha256: dup }), entry({ key_sha256: dup.toUpperCase(), tenant: 'beta' })], /\[1\]\.key_sha256: the same key as entry \[0\]/],
      ['the same name twice', [entry({ name: 'ui' }), entry({ name: 'ui' })], /\[1\]\.name: "ui" is also entry \[0\]'s name/],
      ['NORMA_TOKEN\'s name', [entry({ name: 'NORMA_TOKEN' })], /\[0\]\.name: "NORMA_TOKEN" is the name of NORMA_TOKEN's key/],
      ['two policies for one tenant', [entry({ policy: { max_sessions: 1 } }), entry({ policy: { max_sessions: 2 } })], /tenant "acme" already has a different policy in entry \[0\]/],
      ['a bad deny rule', [entry({ policy: { disallowed_tools: ['Bash('] } })], /\[0\]\.policy\.disallowed_tools/],
    ];
    for (const [what, json, problem] of cases) {
      const problems = await problemsOf(typeof json === 'string' ? json : JSON.stringify(json));
      expect(problems.join('\n'), what).toMatch(problem);
    }
  });

  it('checks a policy\'s hooks where they would run, and names them', async () => {
    const hooks = { PreToolUse: [{ matcher: 'Write', hooks: [{ type: 'command', command: 'true' }] }] };
    const seen: string[] = [];
    const problems = await problemsOf(JSON.stringify([entry({ policy: { hooks } })]), async (_h, where) => {
      seen.push(where);
      return [`${where}.PreToolUse[0].hooks[0]: command hooks need the process sandbox`];
    });
    expect(seen).toEqual(['[0].policy.hooks']);
    expect(problems).toEqual(['[0].policy.hooks.PreToolUse[0].hooks[0]: command hooks need the process sandbox']);
    // The same policy on several entries of the tenant is one policy.
    const same = await parseKeys('k', JSON.stringify([entry({ policy: { hooks } }), entry({ policy: { hooks } })]), noHooks);
    expect(same.policies.get('acme')!.public.hook_events).toEqual(['PreToolUse']);
  });
});

describe('the key ring', () => {
  it('finds a key by its hash, refuses an expired one, and adds NORMA_TOKEN as the default tenant\'s admin', async () => {
    const [a, b, old] = [newKey('a'), newKey('b'), newKey('old')];
    const loaded = await parseKeys(
      'k',
      keysJson([
        { key: a, tenant: 'acme', scopes: ['read'] },
        { key: b, tenant: 'beta', scopes: ['write'] },
        { key: old, tenant: 'beta', scopes: ['write'], expires_at: '2020-01-01T00:00:00Z' },
      ]),
      noHooks,
    );
    const ring = new KeyRing('the-operators-token-0123', loaded);
    const now = Date.now();
    expect(ring.authenticate(a, now)).toMatchObject({ ok: true, key: { tenant: 'acme' } });
    expect(ring.authenticate(b, now)).toMatchObject({ ok: true, key: { tenant: 'beta' } });
    expect(ring.authenticate(old, now)).toEqual({ ok: false, reason: 'expired' });
    expect(ring.authenticate(`${a}x`, now)).toEqual({ ok: false, reason: 'unknown' });
    expect(ring.authenticate('', now)).toEqual({ ok: false, reason: 'unknown' });
    const token = ring.authenticate('the-operators-token-0123', now);
    expect(token).toMatchObject({ ok: true, key: { name: TOKEN_KEY_NAME, tenant: 'default' } });
    expect(token.ok && [...token.key.access]).toEqual(['admin', 'write', 'approve', 'read']);
    expect(ring.required).toBe(true);
    expect(new KeyRing(undefined).required).toBe(false);
  });

  it('a reload reports the tenants whose policy changed', async () => {
    const a = newKey('a');
    const ring = new KeyRing(undefined, await parseKeys('k', keysJson([{ key: a, tenant: 'acme', scopes: ['read'], policy: { max_sessions: 1 } }]), noHooks));
    const heard: string[][] = [];
    ring.onChange((c) => heard.push([...c]));
    const next = await parseKeys(
      'k',
      keysJson([
        { key: a, tenant: 'acme', scopes: ['read'], policy: { max_sessions: 2 } },
        { key: newKey('b'), tenant: 'beta', scopes: ['read'] },
      ]),
      noHooks,
    );
    expect(ring.replace(next)).toEqual({ keys: 2, tenants: 2, changedPolicies: ['acme'] });
    expect(heard).toEqual([['acme']]);
    expect(ring.policyOf('acme')!.public.max_sessions).toBe(2);
  });
});

describe('scopes and modes', () => {
  it('each scope includes the narrower ones', () => {
    expect([...expandScopes(['read'])]).toEqual(['read']);
    expect([...expandScopes(['approve'])]).toEqual(['approve', 'read']);
    expect([...expandScopes(['read', 'write'])]).toEqual(['write', 'approve', 'read']);
    expect([...expandScopes(['admin'])]).toEqual(['admin', 'write', 'approve', 'read']);
  });

  it('orders every mode; a maximum allows itself and stricter ones only', () => {
    expect([...MODE_ORDER].sort()).toEqual([...PERMISSION_MODES].sort());
    expect(modeWithin('bypassPermissions', 'acceptEdits')).toBe(false);
    expect(modeWithin('plan', 'dontAsk')).toBe(true);
    expect(modeWithin('default', 'auto')).toBe(false);
    expect(modeWithin('bypassPermissions', null)).toBe(true);
    expect(clampMode('acceptEdits', 'default')).toBe('default');
    expect(clampMode('plan', 'default')).toBe('plan');
  });
});

describe('tickets', () => {
  const k = (name: string) => ({ id: `id_${name}`, name });
  it('are single use, bound to a session, good for 60 s; a key holds a bounded number', () => {
    let now = 1_000_000;
    const book = new TicketBook(() => now);
    const a = book.issue('ses_a', k('k1'), 'acme');
    expect(a.expiresAt).toBe(now + 60_000);
    expect(book.redeem(a.ticket, 'ses_a')).toEqual({ ok: true, keyId: 'id_k1', tenant: 'acme' });
    expect(book.redeem(a.ticket, 'ses_a').ok).toBe(false);
    const b = book.issue('ses_a', k('k1'), 'acme');
    expect(book.redeem(b.ticket, 'ses_b')).toMatchObject({ ok: false, detail: expect.stringContaining('another session') });
    expect(book.redeem(b.ticket, 'ses_a').ok).toBe(false);
    const c = book.issue('ses_a', k('k1'), 'acme');
    now += 60_000;
    expect(book.redeem(c.ticket, 'ses_a')).toMatchObject({ ok: false, detail: expect.stringContaining('expired') });
    for (let i = 0; i < MAX_TICKETS_PER_KEY; i++) book.issue('ses_a', k('k2'), 'acme');
    expect(() => book.issue('ses_a', k('k2'), 'acme')).toThrow(DomainError);
    expect(book.issue('ses_a', k('k3'), 'acme').ticket).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Counted per exact key: another key under the name k2 starts with none.
    expect(book.issue('ses_a', { id: 'id_k2_rotated', name: 'k2' }, 'acme').ticket).toBeTruthy();
    // Expired ones are swept when tickets are taken again, which frees the key's allowance.
    now += 61_000;
    expect(book.issue('ses_a', k('k2'), 'acme').ticket).toBeTruthy();
    expect(book.size).toBe(1);
  });

  it('are bound to the exact key: the id, not the name; the loopback caller\'s to none', () => {
    const book = new TicketBook(() => 0);
    const loop = book.issue('ses_a', null, 'default');
    expect(book.redeem(loop.ticket, 'ses_a')).toEqual({ ok: true, keyId: null, tenant: 'default' });
  });
});

describe('key ids', () => {
  it('are derived from the key\'s SHA-256: the same on every load, another for another key under the same name', async () => {
    const [a, b] = [newKey('a'), newKey('b')];
    const load = async (key: string) => new KeyRing(undefined, await parseKeys('f', keysJson([{ key, tenant: 'acme', scopes: ['read'], name: 'dash' }]), async () => []));
    const first = (await load(a)).authenticate(a, 0);
    const again = (await load(a)).authenticate(a, 0);
    const rotated = await load(b);
    expect(first.ok && again.ok && first.key.id === again.key.id).toBe(true);
    const id = first.ok ? first.key.id : '';
    expect(id).not.toContain(sha256(a));
    expect(rotated.inForce(id, 0)).toBeNull();
    const b1 = rotated.authenticate(b, 0);
    expect(b1.ok && rotated.inForce(b1.key.id, 0)?.name).toBe('dash');
  });
});

describe('start-up and reload', () => {
  let t: TestServer | undefined;
  const removals: (() => Promise<void>)[] = [];
  afterEach(async () => {
    await t?.close();
    t = undefined;
    for (const r of removals.splice(0)) await r();
  });

  it('a bad file stops start-up; a bad reload keeps the keys in force', async () => {
    const bad = await keysFile(JSON.stringify([entry({ policy: { max_session: 1 } })]));
    removals.push(bad.remove);
    await expect(startServer({ NORMA_SANDBOX: 'off', NORMA_API_KEYS_FILE: bad.file })).rejects.toThrow(/NORMA_API_KEYS_FILE .*\/0\/policy\/max_session: Unexpected property/);

    const k = newKey('k');
    const keyed = await startWithKeys([{ key: k, tenant: 'acme', scopes: ['read'] }]);
    t = keyed;
    const f = keyed.keys;
    const get = (key: string) => fetch(`${t!.url}/v1/sessions`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.status);
    expect(await get(k)).toBe(200);
    await f.write('[{"key_sha256": "nope"}]');
    const r = await t.server.reloadKeys();
    expect(r.ok).toBe(false);
    expect(!r.ok && r.problems.join()).toContain('key_sha256');
    expect(await get(k)).toBe(200);
    const k2 = newKey('k2');
    await f.write([{ key: k2, tenant: 'acme', scopes: ['read'] }]);
    expect(await t.server.reloadKeys()).toMatchObject({ ok: true, keys: 1, tenants: 1 });
    expect(await get(k)).toBe(401);
    expect(await get(k2)).toBe(200);
    await fs.rm(f.file);
    expect((await t.server.reloadKeys()).ok).toBe(false);
    expect(await get(k2)).toBe(200);
  });

  it('refuses NORMA_TOKEN among the file\'s keys, and a keyless file off loopback', async () => {
    const token = 'operator-token-0123456789';
    const f = await keysFile([{ key: token, tenant: 'acme', scopes: ['read'] }]);
    removals.push(f.remove);
    await expect(startServer({ NORMA_SANDBOX: 'off', NORMA_API_KEYS_FILE: f.file, NORMA_TOKEN: token })).rejects.toThrow(/is NORMA_TOKEN's key/);
    const empty = await keysFile([]);
    removals.push(empty.remove);
    await expect(startServer({ NORMA_SANDBOX: 'off', NORMA_API_KEYS_FILE: empty.file, HOST: '0.0.0.0' })).rejects.toThrow(/lists no key/);
  });
});
