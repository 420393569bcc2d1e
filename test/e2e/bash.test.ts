// Bash over HTTP: the ask, live tool.progress on the SSE stream, spill of a large output,
// session close stopping a running command, and the readiness report.
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { openSse, type SseStream } from '../helpers/sse.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { SandboxHost } from '../../src/sandbox/process.js';
import { RlimitBackend } from '../../src/sandbox/limits.js';
import { sleepers, waitUntil } from '../helpers/processes.js';

let t: TestServer | undefined;
let streams: SseStream[] = [];
afterEach(async () => {
  for (const s of streams) s.close();
  streams = [];
  await t?.close();
  t = undefined;
});

describe('Bash through the API', () => {
  it('asks, then runs sandboxed, streaming live progress and pairing the result', async () => {
    t = await startServer();
    const s = (await t.api.post('/v1/sessions', {})).body;
    expect(s.tools).toContain('Bash');
    const sse = await openSse(`${t.url}/v1/sessions/${s.id}/events`);
    streams.push(sse);
    const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=5`, { tool_uses: [{ id: 'b1', name: 'Bash', input: { command: 'for i in 1 2 3; do echo line $i; sleep 0.05; done' } }] })).body;
    expect(turn.status).toBe('awaiting_permission');
    await t.api.post(`/v1/sessions/${s.id}/permissions/${turn.pending[0]}`, { behavior: 'allow' });
    const done = await sse.waitFor((e) => e.event === 'turn.completed');
    expect(done.data.turn.results[0].content.map((c: { text: string }) => c.text)).toEqual(['line 1\nline 2\nline 3\n', 'Exit code 0.']);
    const progress = sse.events.filter((e) => e.event === 'tool.progress');
    expect(progress.map((e) => e.data.chunk).join('')).toBe('line 1\nline 2\nline 3\n');
    // Live-only events carry no SSE id.
    expect(progress.every((e) => e.id === undefined)).toBe(true);
  });

  it('spills a large output to a downloadable file with a matching digest', async () => {
    t = await startServer();
    const s = (await t.api.post('/v1/sessions', { permission_mode: 'bypassPermissions', output_cap_chars: 1000 })).body;
    const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { tool_uses: [{ name: 'Bash', input: { command: 'seq 1 200000' } }] })).body;
    const tr = turn.results[0].truncation;
    expect(tr).toMatchObject({ shown_chars: 1000, block_index: 0 });
    const res = await fetch(`${t.url}/v1/sessions/${s.id}/outputs/${tr.output_id}`);
    const body = Buffer.from(await res.arrayBuffer());
    expect(createHash('sha256').update(body).digest('hex')).toBe(tr.sha256);
    const lines = body.toString('utf8').trimEnd().split('\n');
    expect(lines.length).toBe(200000);
    expect(lines[199999]).toBe('200000');
  });

  it('closing the session stops a running command and its whole tree', async () => {
    t = await startServer();
    const marker = `${Math.floor(Math.random() * 1e6)}.5151`;
    const s = (await t.api.post('/v1/sessions', { permission_mode: 'bypassPermissions' })).body;
    const turn = (await t.api.post(`/v1/sessions/${s.id}/turns`, { tool_uses: [{ name: 'Bash', input: { command: `sleep ${marker} & sleep ${marker}` } }] })).body;
    await waitUntil(() => sleepers(marker), (n) => n >= 2);
    expect(await sleepers(marker)).toBe(2);
    expect((await t.api.delete(`/v1/sessions/${s.id}`)).status).toBe(204);
    const after = (await t.api.get(`/v1/sessions/${s.id}/turns/${turn.id}`)).body;
    expect(after.status).toBe('cancelled');
    expect(after.results[0].content[0].text).toMatch(/^Cancelled: the session was closed/);
    await waitUntil(() => sleepers(marker), (n) => n === 0, 50);
    expect(await sleepers(marker)).toBe(0);
  });

  it('a background task announces its start and end on the stream; closing the session reaps running ones', async () => {
    t = await startServer();
    const s = (await t.api.post('/v1/sessions', { permission_mode: 'bypassPermissions' })).body;
    const sse = await openSse(`${t.url}/v1/sessions/${s.id}/events`);
    streams.push(sse);
    const quick = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=5`, { tool_uses: [{ id: 'bg', name: 'Bash', input: { command: 'echo bg; exit 7', run_in_background: true } }] })).body;
    const taskId = /task_[A-Za-z0-9_-]+/.exec(quick.results[0].content[0].text)![0];
    expect((await sse.waitFor((e) => e.event === 'task.started')).data).toMatchObject({ task_id: taskId, command: 'echo bg; exit 7', turn_id: quick.id, tool_use_id: 'bg' });
    const ended = await sse.waitFor((e) => e.event === 'task.completed');
    expect(ended.data).toMatchObject({ task_id: taskId, status: 'exited', exit_code: 7, signal: null, output_bytes: 3 });

    const marker = `${Math.floor(Math.random() * 1e6)}.8181`;
    await t.api.post(`/v1/sessions/${s.id}/turns?wait=5`, { tool_uses: [{ name: 'Bash', input: { command: `sleep ${marker}`, run_in_background: true } }] });
    await waitUntil(() => sleepers(marker), (n) => n >= 1);
    expect(await sleepers(marker)).toBe(1);
    await t.api.delete(`/v1/sessions/${s.id}`);
    expect(await sleepers(marker)).toBe(0);
    const stopped = sse.events.filter((e) => e.event === 'task.completed').map((e) => e.data.status);
    expect(stopped).toEqual(['exited', 'stopped']);
    await fs.access(t.dataDir);
    await expect(fs.stat(`${t.dataDir}/tasks/${s.id}`)).rejects.toThrow();
  });

  it('sandbox_network opens HTTP through the egress proxy for a session (never the server itself); by default it stays closed', async () => {
    const other = http.createServer((_req, res) => res.end('other service'));
    await new Promise<void>((r) => other.listen(0, '127.0.0.2', r));
    const otherPort = (other.address() as { port: number }).port;
    try {
      // Even an allowlist that covers the server's own address does not open it to sandboxes.
      t = await startServer({ NORMA_EGRESS_ALLOW: '127.0.0.0/8' });
      const port = new URL(t.url).port;
      const command = [
        `curl -s --max-time 10 -o /dev/null -w '%{http_code}' http://127.0.0.2:${otherPort}/ && echo ' other'`,
        // Direct (NO_PROXY covers loopback), then forced through the proxy: neither reaches the server.
        `curl -s --max-time 10 http://127.0.0.1:${port}/v1/sessions | head -c 200; echo`,
        `curl -s --max-time 10 --noproxy '' http://127.0.0.1:${port}/v1/sessions | head -c 200; echo`,
        `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected || echo refused`,
      ].join('; ');
      const probe = { tool_uses: [{ name: 'Bash', input: { command } }] };
      const open = (await t.api.post('/v1/sessions', { permission_mode: 'bypassPermissions', sandbox_network: true })).body;
      expect(open.sandbox_network).toBe(true);
      const closed = (await t.api.post('/v1/sessions', { permission_mode: 'bypassPermissions' })).body;
      expect(closed.sandbox_network).toBe(false);
      const yes = (await t.api.post(`/v1/sessions/${open.id}/turns?wait=20`, probe)).body;
      const no = (await t.api.post(`/v1/sessions/${closed.id}/turns?wait=20`, probe)).body;
      const yesText = yes.results[0].content[0].text as string;
      expect(yesText).toMatch(/^200 other\n/);
      expect(yesText).toContain("norma egress: 127.0.0.1:" + port + " is this server's own address");
      expect(yesText).toContain('refused');
      expect(yesText).not.toContain('"items"');
      const noText = no.results[0].content[0].text as string;
      expect(noText).toMatch(/^000/);
      expect(noText).toContain('refused');
      const evidence = (await t.api.get(`/v1/sessions/${open.id}/egress`)).body.items;
      expect(evidence.map((e: { url: string; status: number; via: string }) => [e.url, e.status, e.via])).toEqual([
        [`http://127.0.0.2:${otherPort}/`, 200, 'sandbox_proxy'],
        [`http://127.0.0.1:${port}/v1/sessions`, 403, 'sandbox_proxy'],
      ]);
    } finally {
      other.close();
    }
  });

  it('PTY shells are opt-in, and closing the session stops what runs in them', async () => {
    t = await startServer();
    expect((await t.api.post('/v1/sessions', {})).body.tools).not.toContain('ShellOpen');
    const s = (await t.api.post('/v1/sessions', { permission_mode: 'bypassPermissions', tools: ['ShellOpen', 'ShellWrite', 'ShellRead', 'ShellClose'] })).body;
    const opened = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ name: 'ShellOpen', input: {} }] })).body;
    const shellId = /shell_[A-Za-z0-9_-]+/.exec(opened.results[0].content[0].text)![0];
    const marker = `${Math.floor(Math.random() * 1e6)}.1212`;
    await t.api.post(`/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ name: 'ShellWrite', input: { shell_id: shellId, input: `sleep ${marker} &\r` } }] });
    expect(await waitUntil(() => sleepers(marker), (n) => n === 1)).toBe(1);
    await t.api.delete(`/v1/sessions/${s.id}`);
    expect(await waitUntil(() => sleepers(marker), (n) => n === 0, 50)).toBe(0);
  });

  it('reports the sandbox in /readyz and, when turned off, in every session', async () => {
    t = await startServer();
    const ready = (await t.api.get('/readyz')).body;
    expect(ready.checks.find((c: { name: string }) => c.name === 'sandbox')).toMatchObject({ ok: true, detail: expect.stringMatching(/passed its self-test/) });
    await t.close();
    t = await startServer({ NORMA_SANDBOX: 'off' });
    const s = (await t.api.post('/v1/sessions', {})).body;
    expect(s.sandbox).toBe('off');
    expect(s.warnings).toContain('the process sandbox is off (NORMA_SANDBOX=off): shell tools and command hooks run UNSANDBOXED');
    expect((await t.api.get('/readyz')).body.checks.find((c: { name: string }) => c.name === 'sandbox').detail).toMatch(/UNSANDBOXED/);
  });

  it('without a usable sandbox, asking for Bash is a 400 and the default set leaves it out with a warning', async () => {
    t = await startServer({}, { processSandbox: new SandboxHost({ mode: 'bwrap', bwrapPath: null, limits: new RlimitBackend('test') }) });
    const ask = await t.api.post('/v1/sessions', { tools: ['Bash'] });
    expect(ask.status).toBe(400);
    expect(ask.body.detail).toContain('"Bash" cannot be installed: the process sandbox is unusable (bubblewrap (bwrap) not found on PATH');
    const dflt = (await t.api.post('/v1/sessions', {})).body;
    expect(dflt.tools).not.toContain('Bash');
    expect(dflt.warnings.join('\n')).toMatch(/"Bash" cannot be installed: .*left out of the default tools/);
  });
});
