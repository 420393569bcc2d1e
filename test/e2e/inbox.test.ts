// The inbox through the HTTP API: session names and labels (set, changed, filtered on), each
// listed session's count of what waits for a person, and GET /v1/pending across sessions,
// oldest first, page by page, each item with its session. Bad filters and names are 400s.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';

let t: TestServer;
beforeAll(async () => {
  t = await startServer({ NORMA_SANDBOX: 'off' });
});
afterAll(async () => {
  await t?.close();
});

const write = (file: string) => ({ tool_uses: [{ name: 'Write', input: { file_path: file, content: 'x' } }] });
const ask = { tool_uses: [{ name: 'AskUser', input: { questions: [{ question: 'Go on?', options: [{ label: 'Yes' }, { label: 'No' }] }] } }] };

describe('session names and labels', () => {
  it('are set at creation, shown, changed by PATCH and kept by a fork', async () => {
    const s = (await t.api.post('/v1/sessions', { name: 'Nightly: fix the build ✓', labels: { team: 'infra', 'app.kubernetes.io/name': 'api' } })).body;
    expect(s).toMatchObject({ name: 'Nightly: fix the build ✓', labels: { team: 'infra', 'app.kubernetes.io/name': 'api' } });
    expect((await t.api.get(`/v1/sessions/${s.id}`)).body).toMatchObject({ name: 'Nightly: fix the build ✓', pending: 0 });
    const patched = (await t.api.patch(`/v1/sessions/${s.id}`, { name: null, labels: { team: 'web' } })).body;
    expect(patched).toMatchObject({ name: null, labels: { team: 'web' } });
    const ls = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ name: 'LS', input: { path: '.' } }] })).body;
    expect(ls.status).toBe('completed');
    const at = (await t.api.get(`/v1/sessions/${s.id}/checkpoints`)).body.items[0].id as string;
    const fork = await t.api.post(`/v1/sessions/${s.id}/fork`, { at });
    expect(fork.status).toBe(201);
    expect(fork.body).toMatchObject({ name: null, labels: { team: 'web' } });
    const plain = (await t.api.post('/v1/sessions', {})).body;
    expect(plain).toMatchObject({ name: null, labels: {} });
  });

  it('bad names and labels are 400s naming the field, and nothing is created', async () => {
    const before = (await t.api.get('/v1/sessions?limit=200')).body.items.length;
    const bad = [
      { name: 'x'.repeat(201) },
      { name: '' },
      { name: 'two\nlines' },
      { labels: { team: 7 } },
      { labels: { 'has space': 'v' } },
      { labels: { 'a:b': 'v' } },
      { labels: { team: ['infra'] } },
      { labels: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, 'v'])) },
      { labels: { k: 'v'.repeat(257) } },
    ];
    for (const body of bad) {
      const r = await t.api.post('/v1/sessions', body);
      expect(r.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(JSON.stringify(r.body.errors ?? r.body.detail)).toMatch(/name|labels/);
    }
    expect((await t.api.get('/v1/sessions?limit=200')).body.items.length).toBe(before);
  });

  it('?label=key:value (every one) and ?status= filter the list, page by page', async () => {
    const mk = async (labels: Record<string, string>) => (await t.api.post('/v1/sessions', { labels })).body.id as string;
    const a = await mk({ proj: 'filters', env: 'prod' });
    const b = await mk({ proj: 'filters', env: 'dev' });
    const c = await mk({ proj: 'filters', env: 'prod', url: 'https://x:1' });
    await t.api.delete(`/v1/sessions/${a}`);
    const ids = async (q: string) => {
      const out: string[] = [];
      for (let cursor: string | null = null, first = true; first || cursor; first = false) {
        const page: any = (await t.api.get(`/v1/sessions?limit=1&${q}${cursor ? `&cursor=${cursor}` : ''}`)).body;
        out.push(...page.items.map((s: { id: string }) => s.id));
        cursor = page.next_cursor;
      }
      return out;
    };
    expect(await ids('label=proj:filters')).toEqual([c, b, a]);
    expect(await ids('label=proj:filters&label=env:prod')).toEqual([c, a]);
    expect(await ids('label=proj:filters&label=env:prod&status=active')).toEqual([c]);
    expect(await ids('label=proj:filters&status=closed')).toEqual([a]);
    // The value is everything after the first colon.
    expect(await ids('label=url:https://x:1')).toEqual([c]);
    expect(await ids('label=proj:other')).toEqual([]);
    // A key that is a JSON path elsewhere matches nothing rather than something else.
    expect(await ids('label=proj:filters&label=env.x:prod')).toEqual([]);
    for (const q of ['label=noColon', 'label=:v', 'label=has%20space:v', 'label=a"b:v', 'status=paused']) {
      const r = await t.api.get(`/v1/sessions?${q}`);
      expect(r.status, q).toBe(400);
    }
    expect((await t.api.get(`/v1/sessions?${Array.from({ length: 17 }, () => 'label=a:b').join('&')}`)).status).toBe(400);
  });
});

describe('what waits for a person', () => {
  it('each listed session counts its pending requests and questions; GET /v1/pending lists them oldest first with their session', async () => {
    const one = (await t.api.post('/v1/sessions', { name: 'one', labels: { inbox: 'yes' }, tools: ['Write', 'AskUser'] })).body.id as string;
    const two = (await t.api.post('/v1/sessions', { name: 'two', labels: { inbox: 'yes' }, tools: ['Write', 'AskUser'] })).body.id as string;
    const p1 = (await t.api.post(`/v1/sessions/${one}/turns?wait=10`, write('a.txt'))).body;
    expect(p1.status).toBe('awaiting_permission');
    const q2 = (await t.api.post(`/v1/sessions/${two}/turns?wait=10`, ask)).body;
    expect(q2.status).toBe('awaiting_input');
    const list = (await t.api.get('/v1/sessions?label=inbox:yes')).body.items as { id: string; pending: number }[];
    expect(list.map((s) => [s.id, s.pending])).toEqual([[two, 1], [one, 1]]);

    const pending = (await t.api.get('/v1/pending')).body;
    const mine = pending.items.filter((i: any) => [one, two].includes(i.session.id));
    expect(mine.map((i: any) => i.kind)).toEqual(['permission', 'question']);
    expect(mine[0]).toMatchObject({ session: { id: one, name: 'one', labels: { inbox: 'yes' }, permission_mode: 'default' }, permission: { id: p1.pending[0], tool: 'Write', status: 'pending' } });
    expect(mine[1]).toMatchObject({ session: { id: two, name: 'two' }, question: { id: q2.pending[0], status: 'pending' } });

    // Page by page: the same items, in the same order.
    const paged: string[] = [];
    for (let cursor: string | null = null, first = true; first || cursor; first = false) {
      const page: any = (await t.api.get(`/v1/pending?limit=1${cursor ? `&cursor=${cursor}` : ''}`)).body;
      paged.push(...page.items.map((i: any) => (i.permission ?? i.question).id));
      cursor = page.next_cursor;
    }
    expect(paged).toEqual(pending.items.map((i: any) => (i.permission ?? i.question).id));

    // Answered: gone from the inbox and from the count.
    expect((await t.api.post(`/v1/sessions/${one}/permissions/${p1.pending[0]}`, { behavior: 'deny' })).status).toBe(200);
    const after = (await t.api.get('/v1/pending')).body.items.map((i: any) => i.session.id);
    expect(after).not.toContain(one);
    expect(after).toContain(two);
    expect((await t.api.get(`/v1/sessions/${one}`)).body.pending).toBe(0);
    // A closed session has nothing waiting.
    await t.api.delete(`/v1/sessions/${two}`);
    expect((await t.api.get('/v1/pending')).body.items.map((i: any) => i.session.id)).not.toContain(two);
  });

  it('a cursor the server did not make is a 400', async () => {
    for (const cursor of ['abc', Buffer.from('{"created_at":1}').toString('base64url'), Buffer.from('[]').toString('base64url')]) {
      const r = await t.api.get(`/v1/pending?cursor=${cursor}`);
      expect(r.status, cursor).toBe(400);
      expect(r.body.detail).toContain('cursor');
    }
    expect((await t.api.get('/v1/pending?limit=0')).status).toBe(400);
    expect((await t.api.get('/v1/pending?limit=201')).status).toBe(400);
  });
});
