// Spill files as evidence, end to end: a capped result points at an output whose served
// bytes match the recorded digest; Range, ETag, Repr-Digest; retention by budget and age.
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

async function capturedRead(server: TestServer, lines: number, cap = 100) {
  const s = (await server.api.post('/v1/sessions', { output_cap_chars: cap })).body;
  const body = Array.from({ length: lines }, (_, i) => `line ${i} ${'é'.repeat(i % 7)}`).join('\n');
  await fs.writeFile(path.join(s.workspace, 'big.txt'), body);
  const turn = (await server.api.post(`/v1/sessions/${s.id}/turns?wait=5`, { tool_uses: [{ id: 'toolu_r', name: 'Read', input: { file_path: 'big.txt' } }] })).body;
  return { session: s, turn, result: turn.results[0] };
}

describe('spill files', () => {
  it('a capped result points at a recorded output whose served bytes match its digest', async () => {
    t = await startServer();
    const { session, turn, result } = await capturedRead(t, 300);
    const tr = result.truncation;
    expect(tr.output_id).toMatch(/^out_/);
    expect(result.content[0].text).toHaveLength(100);
    expect(result.content[1].text).toBe(`[output capped: showing the first 100 of ${tr.total_chars} characters; the full output is ${tr.output_id}]`);

    const list = await t.api.get(`/v1/sessions/${session.id}/outputs`);
    expect(list.body).toEqual([
      {
        id: tr.output_id,
        session_id: session.id,
        turn_id: turn.id,
        tool_use_id: 'toolu_r',
        tool: 'Read',
        block_index: 0,
        bytes: expect.any(Number),
        chars: tr.total_chars,
        sha256: tr.sha256,
        status: 'available',
        created_at: expect.any(String),
      },
    ]);

    const res = await fetch(`${t.url}/v1/sessions/${session.id}/outputs/${tr.output_id}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(sha256(bytes)).toBe(tr.sha256);
    expect(bytes.length).toBe(list.body[0].bytes);
    expect(res.headers.get('etag')).toBe(`"${tr.sha256}"`);
    expect(res.headers.get('repr-digest')).toBe(`sha-256=:${Buffer.from(tr.sha256, 'hex').toString('base64')}:`);
    // The full text is the Read output the model would have seen uncapped.
    const full = bytes.toString('utf8');
    expect(full.startsWith(result.content[0].text)).toBe(true);
    expect([...full]).toHaveLength(tr.total_chars);
    expect(full).toContain('   300\tline 299');
  });

  it('serves byte ranges that match slices of the whole, and handles validators', async () => {
    t = await startServer();
    const { session, result } = await capturedRead(t, 200);
    const url = `${t.url}/v1/sessions/${session.id}/outputs/${result.truncation.output_id}`;
    const whole = Buffer.from(await (await fetch(url)).arrayBuffer());
    const size = whole.length;
    for (const [range, start, end] of [
      ['bytes=0-9', 0, 9],
      ['bytes=10-', 10, size - 1],
      ['bytes=-5', size - 5, size - 1],
      [`bytes=100-${size + 50}`, 100, size - 1],
    ] as const) {
      const res = await fetch(url, { headers: { range } });
      expect(res.status, range).toBe(206);
      expect(res.headers.get('content-range')).toBe(`bytes ${start}-${end}/${size}`);
      expect(Buffer.from(await res.arrayBuffer()).equals(whole.subarray(start, end + 1))).toBe(true);
      // Repr-Digest is of the whole representation, also on partial responses.
      expect(res.headers.get('repr-digest')).toBe(`sha-256=:${Buffer.from(result.truncation.sha256, 'hex').toString('base64')}:`);
    }
    const unsat = await fetch(url, { headers: { range: `bytes=${size}-` } });
    expect(unsat.status).toBe(416);
    expect(unsat.headers.get('content-range')).toBe(`bytes */${size}`);
    expect(unsat.headers.get('content-type')).toMatch(/problem\+json/);
    // Multi-range and malformed ranges get the whole output.
    expect((await fetch(url, { headers: { range: 'bytes=0-1,5-6' } })).status).toBe(200);
    expect((await fetch(url, { headers: { range: 'pages=1' } })).status).toBe(200);

    const etag = `"${result.truncation.sha256}"`;
    const notModified = await fetch(url, { headers: { 'if-none-match': etag } });
    expect(notModified.status).toBe(304);
    expect(await notModified.text()).toBe('');
    const staleIfRange = await fetch(url, { headers: { range: 'bytes=0-9', 'if-range': '"other"' } });
    expect(staleIfRange.status).toBe(200);
    const freshIfRange = await fetch(url, { headers: { range: 'bytes=0-9', 'if-range': etag } });
    expect(freshIfRange.status).toBe(206);
    const head = await fetch(url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(size));
  });

  it('only the owning session resolves an output id; bad ids are 400', async () => {
    t = await startServer();
    const { result } = await capturedRead(t, 200);
    const other = (await t.api.post('/v1/sessions', {})).body;
    const cross = await t.api.get(`/v1/sessions/${other.id}/outputs/${result.truncation.output_id}`);
    expect(cross.status).toBe(404);
    expect(cross.body.detail).toBe(`output ${result.truncation.output_id} does not exist`);
    expect((await t.api.get(`/v1/sessions/${other.id}/outputs/..%2F..%2Fetc%2Fpasswd`)).status).toBe(400);
    expect((await t.api.get(`/v1/sessions/${other.id}/outputs`)).body).toEqual([]);
    expect((await t.api.get('/v1/sessions/ses_missing/outputs')).status).toBe(404);
  });

  it('a session over its byte budget loses its oldest outputs first; they answer 410', async () => {
    t = await startServer({ NORMA_OUTPUT_MAX_BYTES: '3000' });
    const s = (await t.api.post('/v1/sessions', { output_cap_chars: 100, permission_mode: 'acceptEdits' })).body;
    await fs.writeFile(path.join(s.workspace, 'a.txt'), 'a'.repeat(1800));
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=5`, { tool_uses: [{ name: 'Read', input: { file_path: 'a.txt' } }] })).body;
      ids.push(turn.results[0].truncation.output_id);
    }
    const list = (await t.api.get(`/v1/sessions/${s.id}/outputs`)).body;
    expect(list.map((o: { id: string; status: string }) => [o.id, o.status])).toEqual([
      [ids[0], 'expired'],
      [ids[1], 'expired'],
      [ids[2], 'available'],
    ]);
    expect(list[0].expired_at).toEqual(expect.any(String));
    const gone = await t.api.get(`/v1/sessions/${s.id}/outputs/${ids[0]}`);
    expect(gone.status).toBe(410);
    expect(gone.body.detail).toContain(list[0].sha256);
    expect(await fs.readdir(path.join(t.dataDir, 'outputs', s.id))).toEqual([`${ids[2]}.txt`]);
  });

  it('the retention sweep expires old outputs and removes spill directories of unknown sessions', async () => {
    let now = Date.parse('2026-06-01T00:00:00Z');
    t = await startServer({ NORMA_OUTPUT_RETENTION_S: '3600' }, { clock: () => new Date(now) });
    const orphan = path.join(t.dataDir, 'outputs', 'ses_from_a_previous_process');
    await fs.mkdir(orphan, { recursive: true });
    await fs.writeFile(path.join(orphan, 'out_x.txt'), 'old');
    const { session, result } = await capturedRead(t, 200);
    now += 3601 * 1000;
    const swept = await t.server.ctx.sweepOutputs();
    expect(swept).toEqual({ expired: 1, orphanDirs: 1 });
    await expect(fs.stat(orphan)).rejects.toThrow();
    expect((await t.api.get(`/v1/sessions/${session.id}/outputs/${result.truncation.output_id}`)).status).toBe(410);
  });
});
