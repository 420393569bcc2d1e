// The network scope of sandboxed processes through the API (API.md "Network scope and secrets"):
// real clients inside the sandbox (curl, Node's fetch, Python's urllib) against loopback servers
// that test names resolve to, in each mode; asks answered while the connection waits.
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';

let t: TestServer | undefined;
const servers: http.Server[] = [];
afterEach(async () => {
  await t?.close();
  t = undefined;
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

/** Test names and the loopback addresses they resolve to (the proxy resolves; the sandbox has no resolver). */
const NAMES: Record<string, string> = { 'allowed.test': '127.0.0.2', 'other.test': '127.0.0.3', 'sub.allowed.test': '127.0.0.2' };
const resolve = async (host: string) => {
  const a = NAMES[host];
  if (!a) throw new Error(`ENOTFOUND ${host}`);
  return [{ address: a, family: 4 }];
};

const hits: string[] = [];
async function echoServer(address: string): Promise<number> {
  const s = http.createServer((req, res) => {
    hits.push(`${address} ${req.url}`);
    res.end(`hello from ${address} ${req.method} ${req.url} host=${req.headers.host}${req.headers['x-acme'] ? ` acme=${req.headers['x-acme']}` : ''}`);
  });
  await new Promise<void>((r) => s.listen(0, address, r));
  servers.push(s);
  return (s.address() as { port: number }).port;
}

/** Runs one Bash call and waits for its turn to end (through any wait for a person that resolves by itself). */
async function bash(sessionId: string, command: string): Promise<{ text: string; turn: Record<string, unknown> }> {
  let turn = (await t!.api.post(`/v1/sessions/${sessionId}/turns?wait=30`, { tool_uses: [{ name: 'Bash', input: { command } }] })).body;
  for (let i = 0; i < 600 && !['completed', 'failed', 'cancelled', 'interrupted'].includes(turn.status); i++) {
    await new Promise((r) => setTimeout(r, 50));
    turn = (await t!.api.get(`/v1/sessions/${sessionId}/turns/${turn.id}?wait=30`)).body;
  }
  if (!turn.results?.[0]) throw new Error(`the turn ended without a result: ${JSON.stringify(turn).slice(0, 2000)}`);
  return { text: (turn.results[0].content as { text: string }[]).map((c) => c.text).join('\n'), turn };
}

describe('network scope for sandboxed processes', () => {
  it('"rules": only hosts a Network rule allows, by name; the rest refused with the reason in the result and the evidence', async () => {
    const port = await echoServer('127.0.0.2');
    const otherPort = await echoServer('127.0.0.3');
    t = await startServer({ NORMA_EGRESS_ALLOW: '127.0.0.0/8' }, { resolve });
    const s = (await t.api.post('/v1/sessions', { permission_mode: 'bypassPermissions', sandbox_network: 'rules', allowed_tools: ['Network(domain:allowed.test)'] })).body;
    expect(s.sandbox_network).toBe('rules');
    const { text } = await bash(
      s.id,
      [
        `curl -s --max-time 10 http://allowed.test:${port}/a; echo`,
        `curl -s --max-time 10 http://other.test:${otherPort}/b; echo`,
        // An address where the rule names a name: refused too.
        `curl -s --max-time 10 http://127.0.0.2:${port}/c; echo`,
        `node -e "fetch('http://allowed.test:${port}/node').then(r => r.text()).then(t => console.log('node', t), e => console.log('node error', e.cause?.message ?? e.message))"`,
        `python3 -c "import urllib.request; print('py', urllib.request.urlopen('http://allowed.test:${port}/py', timeout=10).read().decode())"`,
      ].join('; '),
    );
    expect(text).toContain(`hello from 127.0.0.2 GET /a host=allowed.test:${port}`);
    expect(text).toContain('norma egress: HTTP to other.test');
    expect(text).not.toContain('hello from 127.0.0.3');
    expect(text).toContain('norma egress: HTTP to 127.0.0.2');
    expect(text).toContain(`node hello from 127.0.0.2 GET /node`);
    expect(text).toContain(`py hello from 127.0.0.2 GET /py`);
    expect(text).toMatch(/Network: refused 2 connection\(s\)/);
    const evidence = (await t.api.get(`/v1/sessions/${s.id}/egress`)).body.items as Record<string, unknown>[];
    const allowed = evidence.find((e) => e.url === `http://allowed.test:${port}/a`)!;
    expect(allowed).toMatchObject({ status: 200, host: 'allowed.test', rules: ['Network(domain:allowed.test)'], via: 'sandbox_proxy', scheme: 'http' });
    expect(evidence.find((e) => String(e.url).includes('other.test'))).toMatchObject({ status: 403 });
  });
});

async function pendingNetwork(sessionId: string, turnId: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 400; i++) {
    const turn = (await t!.api.get(`/v1/sessions/${sessionId}/turns/${turnId}`)).body;
    if (turn.pending.length > 0) return (await t!.api.get(`/v1/sessions/${sessionId}/permissions/${turn.pending[0]}`)).body;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('no permission request came');
}

describe('"ask": a connection waits for a person', () => {
  it('allow (remembered), deny and timeout, with the request naming host, port, scheme and the call; connections to one host share one request', async () => {
    const port = await echoServer('127.0.0.2');
    const otherPort = await echoServer('127.0.0.3');
    t = await startServer({ NORMA_EGRESS_ALLOW: '127.0.0.0/8' }, { resolve });
    const s = (await t.api.post('/v1/sessions', { permission_mode: 'bypassPermissions', sandbox_network: 'ask' })).body;
    // Two connections to one host at once: one request.
    const started = (
      await t.api.post(`/v1/sessions/${s.id}/turns`, {
        tool_uses: [{ id: 'net1', name: 'Bash', input: { command: `for i in 1 2; do curl -s --max-time 30 http://allowed.test:${port}/p$i & done; wait; echo` } }],
      })
    ).body;
    const request = await pendingNetwork(s.id, started.id);
    expect(request).toMatchObject({ tool: 'Network', tool_use_id: 'net1', input: { host: 'allowed.test', port, scheme: 'http' }, suggestions: ['Network(domain:allowed.test)'] });
    // Where it goes; the name is not looked up before the answer.
    expect(request.preview).toEqual({ kind: 'network', scheme: 'http', host: 'allowed.test', port, address: null });
    expect((await t.api.get(`/v1/sessions/${s.id}/turns/${started.id}`)).body.status).toBe('awaiting_permission');
    await t.api.post(`/v1/sessions/${s.id}/permissions/${request.id}`, { behavior: 'allow', remember: ['Network(domain:allowed.test)'] });
    const done = (await t.api.get(`/v1/sessions/${s.id}/turns/${started.id}?wait=30`)).body;
    const text = done.results[0].content[0].text as string;
    expect(text).toContain('GET /p1');
    expect(text).toContain('GET /p2');
    const all = (await t.api.get(`/v1/sessions/${s.id}/permissions`)).body.items as { tool: string }[];
    expect(all.filter((p) => p.tool === 'Network')).toHaveLength(1);
    // Remembered: the next call is not asked.
    const again = await bash(s.id, `curl -s --max-time 10 http://allowed.test:${port}/again`);
    expect(again.text).toContain('GET /again');
    expect(((await t.api.get(`/v1/sessions/${s.id}/permissions`)).body.items as unknown[]).length).toBe(1);

    // Deny: the process sees a refusal that says why.
    const denied = (await t.api.post(`/v1/sessions/${s.id}/turns`, { tool_uses: [{ id: 'net2', name: 'Bash', input: { command: `curl -s --max-time 30 http://other.test:${otherPort}/x; echo` } }] })).body;
    const r2 = await pendingNetwork(s.id, denied.id);
    await t.api.post(`/v1/sessions/${s.id}/permissions/${r2.id}`, { behavior: 'deny', message: 'not that one' });
    const deniedText = ((await t.api.get(`/v1/sessions/${s.id}/turns/${denied.id}?wait=30`)).body.results[0].content[0].text) as string;
    expect(deniedText).toContain('refused (not that one)');
    expect(deniedText).not.toContain('hello from');
    // The decisions name who decided.
    const decisions = (await t.api.get(`/v1/sessions/${s.id}/decisions`)).body.items as { tool: string; behavior: string; decided_by: string }[];
    expect(decisions.filter((d) => d.tool === 'Network').map((d) => [d.behavior, d.decided_by])).toEqual([
      ['ask', 'mode'],
      ['allow', 'person'],
      ['ask', 'mode'],
      ['deny', 'person'],
    ]);
  });

  it('a request nobody answers times out as refused while the call\'s own timeout keeps running', async () => {
    const port = await echoServer('127.0.0.2');
    t = await startServer({ NORMA_EGRESS_ALLOW: '127.0.0.0/8' }, { resolve });
    const s = (await t.api.post('/v1/sessions', { permission_mode: 'bypassPermissions', sandbox_network: 'ask', permission_timeout_s: 1 })).body;
    const { text } = await bash(s.id, `curl -s --max-time 30 http://allowed.test:${port}/x; echo`);
    expect(text).toMatch(/no answer within 1 s/);
    const p = ((await t.api.get(`/v1/sessions/${s.id}/permissions`)).body.items as { status: string; resolved_by: string }[])[0]!;
    expect(p).toMatchObject({ status: 'denied', resolved_by: 'timeout' });
    // A call whose process gives up first (its timeout) cancels the request nobody waits on.
    const s2 = (await t.api.post('/v1/sessions', { permission_mode: 'bypassPermissions', sandbox_network: 'ask' })).body;
    const gaveUp = await bash(s2.id, `curl -s --max-time 1 http://allowed.test:${port}/y; echo "curl exit $?"`);
    expect(gaveUp.text).toContain('curl exit 28');
    const left = ((await t.api.get(`/v1/sessions/${s2.id}/permissions`)).body.items as { status: string }[])[0]!;
    expect(left.status).toBe('cancelled');
    expect(gaveUp.turn.status).toBe('completed');
  });
});

describe('tunnels are judged by what they carry', { timeout: 90_000 }, () => {
  it('a TLS name other than the CONNECT host, a TCP protocol without a rule naming its port, and a flood of connections are refused', async () => {
    const { SessionAuthority } = await import('../../src/sandbox/net/ca.js');
    const https = await import('node:https');
    const net = await import('node:net');
    const ca = new SessionAuthority('scope-test');
    const leaf = ca.leaf('allowed.test');
    const tlsServer = https.createServer({ cert: leaf.cert, key: leaf.key }, (_req, res) => res.end('tls ok'));
    await new Promise<void>((r) => tlsServer.listen(0, '127.0.0.2', r));
    servers.push(tlsServer as unknown as http.Server);
    const tlsPort = (tlsServer.address() as { port: number }).port;
    const echo = net.createServer((s) => s.pipe(s));
    await new Promise<void>((r) => echo.listen(0, '127.0.0.2', r));
    const tcpPort = (echo.address() as { port: number }).port;
    // A protocol whose server speaks first (SMTP, MySQL): the process says nothing until it has.
    const banner = net.createServer((s) => s.end('220 banner first\r\n'));
    await new Promise<void>((r) => banner.listen(0, '127.0.0.2', r));
    const bannerPort = (banner.address() as { port: number }).port;
    try {
      t = await startServer({ NORMA_EGRESS_ALLOW: '127.0.0.0/8' }, { resolve });
      const s = (await t.api.post('/v1/sessions', { permission_mode: 'bypassPermissions', sandbox_network: 'rules', allowed_tools: ['Network(domain:allowed.test)'] })).body;
      await t.api.post('/v1/sessions/' + s.id + '/turns?wait=10', { tool_uses: [{ name: 'Write', input: { file_path: 'ca.pem', content: ca.certPem } }] });
      const { text } = await bash(
        s.id,
        [
          `curl -s --max-time 10 --cacert ca.pem https://allowed.test:${tlsPort}/; echo " [tls $?]"`,
          // The tunnel is opened for allowed.test; the ClientHello asks for other.test.
          `echo | openssl s_client -proxy 127.0.0.1:3128 -connect allowed.test:${tlsPort} -servername other.test 2>&1 | grep -c 'BEGIN CERTIFICATE'; echo " [sni]"`,
          // No name at all where the tunnel names a host.
          `echo | openssl s_client -proxy 127.0.0.1:3128 -connect allowed.test:${tlsPort} -noservername 2>&1 | grep -c 'BEGIN CERTIFICATE'; echo " [nosni]"`,
          // Plain TCP to a port no rule names.
          `echo ping | timeout 5 socat - PROXY:127.0.0.1:allowed.test:${tcpPort},proxyport=3128; echo " [tcp $?]"`,
          // 160 connections held at once: the proxy serves a bounded number and refuses the rest.
          `python3 -c "
import socket, time
held = []
for i in range(160):
    try: held.append(socket.create_connection(('127.0.0.1', 3128), timeout=5))
    except OSError: pass
for c in held:
    try: c.sendall(b'CONNECT allowed.test:${tlsPort} HTTP/1.1\\r\\n\\r\\n')
    except OSError: pass
time.sleep(1.5)
alive = 0
for c in held:
    c.setblocking(False)
    try: alive += 1 if c.recv(12) else 0
    except OSError: pass
print('alive', alive)
"`,
          `curl -s --max-time 10 --cacert ca.pem https://allowed.test:${tlsPort}/; echo " [after $?]"`,
        ].join('; '),
      );
      expect(text).toContain('tls ok [tls 0]');
      expect(text).toContain('0\n [sni]');
      expect(text).toContain('0\n [nosni]');
      expect(text).not.toContain('ping');
      const alive = Number(/alive (\d+)/.exec(text)![1]);
      expect(alive).toBeGreaterThan(0);
      expect(alive).toBeLessThanOrEqual(128);
      expect(text).toContain('tls ok [after 0]');
      expect(text).toContain('asks for other.test, not the host the tunnel was opened for');
      expect(text).toContain('names no host (SNI)');
      expect(text).toContain('HTTP and HTTPS only: another protocol needs a rule that names the port');
      expect(text).toMatch(/more than 128 connections at once/);

      // With a rule naming host and port, the same TCP connection goes through.
      const s2 = (
        await t.api.post('/v1/sessions', {
          permission_mode: 'bypassPermissions',
          sandbox_network: 'rules',
          allowed_tools: [`Network(domain:allowed.test:${tcpPort})`, `Network(domain:allowed.test:${bannerPort})`],
        })
      ).body;
      const tcp = await bash(
        s2.id,
        [
          `echo ping | timeout 5 socat - PROXY:127.0.0.1:allowed.test:${tcpPort},proxyport=3128; echo " [tcp $?]"`,
          `sleep 4 | timeout 3 socat - PROXY:127.0.0.1:allowed.test:${bannerPort},proxyport=3128; echo " [banner $?]"`,
        ].join('; '),
      );
      expect(tcp.text).toContain('ping\n [tcp');
      expect(tcp.text).toContain('220 banner first');
      const evidence = (await t.api.get(`/v1/sessions/${s2.id}/egress`)).body.items as Record<string, unknown>[];
      expect(evidence[0]).toMatchObject({ method: 'CONNECT', scheme: 'tcp', host: 'allowed.test', port: tcpPort, rules: [`Network(domain:allowed.test:${tcpPort})`] });
    } finally {
      echo.close();
      banner.close();
    }
  });
});

describe('a connection waiting when the server stops', () => {
  it('is refused: at a graceful stop with the turn, after a crash when the server comes back (resolved_by restart)', async () => {
    const fs = await import('node:fs/promises');
    const os = await import('node:os');
    const path = await import('node:path');
    const { launchServer } = await import('../helpers/server-process.js');
    const port = await echoServer('127.0.0.2');
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-net-restart-'));
    const env = { NORMA_DATA_DIR: dataDir, NORMA_EGRESS_ALLOW: '127.0.0.0/8', NORMA_SHUTDOWN_GRACE_S: '1' };
    let running: Awaited<ReturnType<typeof launchServer>> | undefined;
    try {
      running = await launchServer(env);
      const api = running.api;
      const s = (await api.post('/v1/sessions', { permission_mode: 'bypassPermissions', sandbox_network: 'ask' })).body;
      const turn = (await api.post(`/v1/sessions/${s.id}/turns`, { tool_uses: [{ id: 'w1', name: 'Bash', input: { command: `curl -s --max-time 60 http://127.0.0.2:${port}/x` } }] })).body;
      let request: { id: string; status: string; input: unknown } | undefined;
      for (let i = 0; i < 400 && !request; i++) {
        const now = (await api.get(`/v1/sessions/${s.id}/turns/${turn.id}`)).body;
        if (now.pending.length > 0) request = (await api.get(`/v1/sessions/${s.id}/permissions/${now.pending[0]}`)).body;
        else await new Promise((r) => setTimeout(r, 50));
      }
      expect(request).toMatchObject({ status: 'pending', input: { host: '127.0.0.2', port, scheme: 'http' } });
      await running.kill();
      running = await launchServer(env);
      const after = (await running.api.get(`/v1/sessions/${s.id}/permissions/${request!.id}`)).body;
      expect(after).toMatchObject({ status: 'denied', resolved_by: 'restart' });
      expect(after.message).toContain('the server restarted while the connection waited');
      const ended = (await running.api.get(`/v1/sessions/${s.id}/turns/${turn.id}?wait=10`)).body;
      expect(ended.status).toBe('interrupted');
      expect(ended.pending).toEqual([]);

      // A graceful stop: the turn's stop cancels the request, and the process is gone with it.
      const s2 = (await running.api.post('/v1/sessions', { permission_mode: 'bypassPermissions', sandbox_network: 'ask' })).body;
      const turn2 = (await running.api.post(`/v1/sessions/${s2.id}/turns`, { tool_uses: [{ name: 'Bash', input: { command: `curl -s --max-time 60 http://127.0.0.2:${port}/y` } }] })).body;
      let pending2: string | undefined;
      for (let i = 0; i < 400 && !pending2; i++) {
        pending2 = (await running.api.get(`/v1/sessions/${s2.id}/turns/${turn2.id}`)).body.pending[0];
        if (!pending2) await new Promise((r) => setTimeout(r, 50));
      }
      running.child.kill('SIGTERM');
      await running.exited;
      running = await launchServer(env);
      expect((await running.api.get(`/v1/sessions/${s2.id}/permissions/${pending2}`)).body.status).not.toBe('pending');
    } finally {
      await running?.kill();
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  }, 90_000);
});

describe('command hooks', () => {
  it('have no network unless they ask for it, and then the session\'s scope', async () => {
    const port = await echoServer('127.0.0.2');
    const otherPort = await echoServer('127.0.0.3');
    t = await startServer({ NORMA_EGRESS_ALLOW: '127.0.0.0/8' }, { resolve });
    const hook = (network: boolean, host: string, p: number, tag: string) => ({
      type: 'command',
      command: `curl -s --max-time 5 http://${host}:${p}/${tag} >/dev/null; exit 0`,
      ...(network ? { network: true } : {}),
    });
    const s = (
      await t.api.post('/v1/sessions', {
        permission_mode: 'bypassPermissions',
        sandbox_network: 'rules',
        allowed_tools: ['Network(domain:allowed.test)'],
        hooks: { PreToolUse: [{ matcher: 'Read', hooks: [hook(true, 'allowed.test', port, 'with'), hook(false, 'allowed.test', port, 'without'), hook(true, 'other.test', otherPort, 'other')] }] },
      })
    ).body;
    await t.api.post(`/v1/sessions/${s.id}/turns?wait=30`, { tool_uses: [{ name: 'Read', input: { file_path: 'nothing.txt' } }] });
    expect(hits).toContain('127.0.0.2 /with');
    expect(hits).not.toContain('127.0.0.2 /without');
    expect(hits).not.toContain('127.0.0.3 /other');
    hits.length = 0;
  });
});

describe('a tenant\'s policy', () => {
  it('names hosts no session of the tenant opens, and secrets its sessions use by name only and cannot take over', async () => {
    const { startWithKeys, newKey, clientFor } = await import('../helpers/tenants.js');
    const port = await echoServer('127.0.0.2');
    const key = newKey('acme');
    const tenantSecret = 'tenant-secret-value-0123';
    const k = await startWithKeys(
      [{ key, tenant: 'acme', scopes: ['admin'], policy: { disallowed_tools: ['Network(domain:*.allowed.test)'], secrets: { ACME_TOKEN: { value: tenantSecret, hosts: ['allowed.test'], header: 'X-Acme' } } } }],
      { NORMA_SANDBOX: 'bwrap', NORMA_EGRESS_ALLOW: '127.0.0.0/8' },
      { resolve },
    );
    t = k;
    const api = clientFor(t.url, key);
    const s = (await api.post('/v1/sessions', { permission_mode: 'bypassPermissions', sandbox_network: true, allowed_tools: ['Network(domain:sub.allowed.test)'] })).body;
    expect(s.secret_names).toEqual(['ACME_TOKEN']);
    expect(s.policy.secret_names).toEqual(['ACME_TOKEN']);
    expect(JSON.stringify(s)).not.toContain(tenantSecret);
    const turn = (await api.post(`/v1/sessions/${s.id}/turns?wait=30`, {
      tool_uses: [{ name: 'Bash', input: { command: `curl -s --max-time 5 http://sub.allowed.test:${port}/sub; echo; curl -s --max-time 5 http://allowed.test:${port}/apex; echo; echo "$ACME_TOKEN"` } }],
    })).body;
    const text = turn.results[0].content.map((c: { text: string }) => c.text).join('\n') as string;
    // The policy's deny beats the session's allow rule.
    expect(text).toContain("denied by the tenant's policy");
    expect(text).toContain(`hello from 127.0.0.2 GET /apex`);
    // The tenant's secret went in as its header; the server's echo of it came back as the placeholder.
    expect(text).toMatch(/GET \/apex host=allowed\.test:\d+ acme=nrm_ph_[0-9a-f]{32}/);
    expect(text).toMatch(/nrm_ph_[0-9a-f]{32}/);
    expect(text).not.toContain(tenantSecret);
    const taken = await api.post('/v1/sessions', { sandbox_network: true, secrets: { ACME_TOKEN: { value: 'another-value-123', hosts: ['x.test'] } } });
    expect(taken.status).toBe(400);
    expect(JSON.stringify(taken.body)).toContain("secrets.ACME_TOKEN: the tenant's secret of that name is in force");
  });
});

describe('every mode, every client', () => {
  it('curl, Node fetch, Python urllib and git over HTTPS reach an allowed host in true, "rules" and (answered) "ask", and nothing with false', { timeout: 120_000 }, async () => {
    const { SessionAuthority } = await import('../../src/sandbox/net/ca.js');
    const https = await import('node:https');
    const ca = new SessionAuthority('modes');
    const leaf = ca.leaf('allowed.test');
    const seenPaths: string[] = [];
    const server = https.createServer({ cert: leaf.cert, key: leaf.key }, (req, res) => {
      seenPaths.push(req.url!);
      res.end(`tls hello ${req.url}`);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.2', r));
    servers.push(server as unknown as http.Server);
    const port = (server.address() as { port: number }).port;
    t = await startServer({ NORMA_EGRESS_ALLOW: '127.0.0.0/8' }, { resolve });
    const url = `https://allowed.test:${port}`;
    const command = (mode: string) =>
      [
        `curl -s --max-time 20 --cacert ca.pem ${url}/${mode}/curl; echo`,
        `NODE_EXTRA_CA_CERTS=ca.pem node -e "fetch('${url}/${mode}/node').then(r => r.text()).then(t => console.log(t), e => console.log('node error', e.cause?.code ?? e.message))"`,
        `python3 -c "import ssl, urllib.request; print(urllib.request.urlopen('${url}/${mode}/python', timeout=20, context=ssl.create_default_context(cafile='ca.pem')).read().decode())" 2>&1 | tail -1`,
        `GIT_SSL_CAINFO=ca.pem timeout 20 git ls-remote ${url}/${mode}/repo.git 2>&1 | tail -1`,
      ].join('; ');
    for (const mode of [true, 'rules', 'ask', false] as const) {
      const s = (await t.api.post('/v1/sessions', { permission_mode: 'bypassPermissions', sandbox_network: mode, ...(mode === 'rules' ? { allowed_tools: ['Network(domain:allowed.test)'] } : {}) })).body;
      await t.api.post(`/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ name: 'Write', input: { file_path: 'ca.pem', content: ca.certPem } }] });
      const turn = (await t.api.post(`/v1/sessions/${s.id}/turns`, { tool_uses: [{ name: 'Bash', input: { command: command(String(mode)), timeout: 100_000 } }] })).body;
      if (mode === 'ask') {
        // A person allows the host once, without remembering: the call's later connections to it are not asked again.
        const request = await pendingNetwork(s.id, turn.id);
        expect(request.input).toEqual({ host: 'allowed.test', port, scheme: 'https' });
        await t.api.post(`/v1/sessions/${s.id}/permissions/${request.id}`, { behavior: 'allow' });
      }
      let done = (await t.api.get(`/v1/sessions/${s.id}/turns/${turn.id}?wait=60`)).body;
      for (let i = 0; i < 100 && done.status !== 'completed'; i++) done = (await t.api.get(`/v1/sessions/${s.id}/turns/${turn.id}?wait=60`)).body;
      const text = done.results[0].content.map((c: { text: string }) => c.text).join('\n') as string;
      for (const client of ['curl', 'node', 'python']) {
        if (mode === false) expect(text, `${mode} ${client}`).not.toContain(`tls hello /${mode}/${client}`);
        else expect(text, `${mode} ${client}`).toContain(`tls hello /${mode}/${client}`);
      }
      const gitReached = seenPaths.some((p) => p.startsWith(`/${mode}/repo.git/info/refs`));
      expect(gitReached, `${mode} git`).toBe(mode !== false);
      if (mode === 'ask') expect(((await t.api.get(`/v1/sessions/${s.id}/permissions`)).body.items as unknown[]).length).toBe(1);
    }
  });
});
