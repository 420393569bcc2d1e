// Bad input of every shape at every route: the answer is always a 4xx problem+json (never a
// 500), a session that got garbage still works, and nothing is left on disk by refused requests.
// Deterministic: a seeded generator, a bounded number of requests.
import fs from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';

let t: TestServer;
beforeAll(async () => {
  t = await startServer();
});
afterAll(async () => {
  await t?.close();
});

/** mulberry32: small, seeded, good enough to pick shapes. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const STRINGS = ['', ' ', 'x', '\u0000', '\ud800', '🙂', '../../etc/passwd', 'ses_', '%00', '<script>', 'a'.repeat(5000), '__proto__', 'constructor', '1e309', '-0', '*', 'Bash(*)', '$(id)'];
const KEYS = ['tool_uses', 'prompt', 'name', 'input', 'id', 'workspace', 'permission_mode', 'tools', 'hooks', 'limits', 'model', 'behavior', 'updated_input', 'remember', 'message', 'interrupt', 'answers', 'add_rules', 'remove_rules', '__proto__', 'constructor', 'sandbox_network', 'allowed_tools', 'command', 'file_path', 'content'];

function value(r: () => number, depth = 0): unknown {
  const k = Math.floor(r() * (depth > 3 ? 6 : 9));
  switch (k) {
    case 0: return null;
    case 1: return r() < 0.5;
    case 2: return [0, -1, 1.5, 1e308, -1e308, 2 ** 53 + 1, 65536, 7e-324][Math.floor(r() * 8)];
    case 3:
    case 4: return STRINGS[Math.floor(r() * STRINGS.length)];
    case 5: return r() < 0.5 ? {} : [];
    case 6: return Array.from({ length: Math.floor(r() * 4) }, () => value(r, depth + 1));
    default: {
      const o: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
      for (let i = Math.floor(r() * 5); i > 0; i--) o[KEYS[Math.floor(r() * KEYS.length)]!] = value(r, depth + 1);
      return o;
    }
  }
}

function safeQuery(v: string): string {
  try {
    return encodeURIComponent(v);
  } catch {
    return '%ED%A0%80'; // a lone surrogate, as raw bytes
  }
}

function objectValue(r: () => number): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  const keys = ['file_path', 'content', 'command', 'path', 'pattern', 'old_string', 'new_string', 'edits', 'timeout', 'task_id', 'glob', 'offset', 'limit'];
  for (let i = Math.floor(r() * 4); i > 0; i--) o[keys[Math.floor(r() * keys.length)]!] = value(r, 2);
  return o;
}

describe('bad input at every route', () => {
  it('never answers 500, always problem+json, and leaves the session usable', async () => {
    const r = rng(1403);
    const s = (await t.api.post('/v1/sessions', {})).body as { id: string };
    const before = (await fs.readdir(t.config.workspaceRoot)).length;
    const ids = () => [s.id, s.id, s.id, s.id, 'ses_nope', 'x'.repeat(65), '..', '%2e%2e', 'perm_x', 'turn_x'][Math.floor(r() * 10)]!;
    const routes = (): [string, string] => {
      const id = ids();
      return [
        ['POST', '/v1/sessions'],
        ['PATCH', `/v1/sessions/${id}`],
        ['POST', `/v1/sessions/${id}/turns`],
        ['POST', `/v1/sessions/${id}/turns?wait=${['-1', 'abc', '301', '0.5', ''][Math.floor(r() * 5)]}`],
        ['POST', `/v1/sessions/${id}/permissions/${ids()}`],
        ['POST', `/v1/sessions/${id}/turns/${ids()}/cancel`],
        ['GET', `/v1/sessions?limit=${['0', '-5', 'x', '1000000'][Math.floor(r() * 4)]}&cursor=${safeQuery(JSON.stringify(value(r)) ?? "")}`],
        ['GET', `/v1/sessions/${id}/decisions?after=${['-1', 'x', '1e99'][Math.floor(r() * 3)]}`],
        ['GET', `/v1/sessions/${id}/events?after=${['-1', 'x', '99999999999999999999'][Math.floor(r() * 3)]}`],
        ['DELETE', `/v1/sessions/${id === s.id ? 'ses_nope' : id}`],
      ][Math.floor(r() * 10)] as [string, string];
    };
    const statuses = new Map<number, number>();
    let made = 0;
    for (let i = 0; i < 600; i++) {
      const [method, path] = routes();
      const v = value(r);
      const type = ['application/json', 'application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', undefined][Math.floor(r() * 6)];
      // A third of the turns are well-formed calls of real tools with arbitrary inputs: the
      // pipeline's own refusals (is_error results), not the schema's, are exercised then.
      const tools = ['Read', 'Write', 'Edit', 'MultiEdit', 'LS', 'Glob', 'Grep', 'Bash', 'TaskOutput', 'Nope'];
      const call = { tool_uses: Array.from({ length: 1 + Math.floor(r() * 3) }, () => ({ name: tools[Math.floor(r() * tools.length)], input: objectValue(r) })) };
      const raw = r() < 0.1 ? '{"unterminated": ' : r() < 0.05 ? '\u0000\u0001' : path.includes('/turns') && r() < 0.33 ? JSON.stringify(call) : JSON.stringify(v);
      const init: RequestInit = { method, headers: type ? { 'content-type': type } : {} };
      if (method !== 'GET' && method !== 'DELETE' && r() < 0.95) init.body = raw;
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), 20_000);
      const res = await fetch(`${t.url}${path}`, { ...init, signal: controller.signal });
      clearTimeout(timer);
      const text = await res.text();
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      expect(res.status, `${method} ${path} ${String(init.body).slice(0, 300)} → ${text.slice(0, 300)}`).toBeLessThan(500);
      if (res.status >= 400) expect(res.headers.get('content-type'), `${method} ${path}`).toContain('application/problem+json');
      if (method === 'POST' && path === '/v1/sessions' && res.status === 201) {
        made++;
        await t.api.delete(`/v1/sessions/${(JSON.parse(text) as { id: string }).id}`);
      }
      // A turn that got started by chance must not block the next requests.
      const cur = (await t.api.get(`/v1/sessions/${s.id}`)).body as { active_turn_id: string | null };
      if (cur.active_turn_id) await t.api.post(`/v1/sessions/${s.id}/turns/${cur.active_turn_id}/cancel`, {});
    }
    console.log(`[fuzz] 600 requests: ${[...statuses].sort((a, b) => a[0] - b[0]).map(([k, n]) => `${k}×${n}`).join(' ')}`);
    // Every refused creation left nothing; the ones that succeeded were closed (their workspaces stay until retention).
    expect((await fs.readdir(t.config.workspaceRoot)).length).toBe(before + made);
    const after = await t.api.post(`/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ name: 'LS', input: {} }] });
    expect(after.status, JSON.stringify(after.body)).toBe(200);
    expect(after.body.status).toBe('completed');
  }, 120_000);
});
