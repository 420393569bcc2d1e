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

describe('previews', () => {
  const pendingOf = async (sid: string, body: unknown) => {
    const turn = (await t.api.post(`/v1/sessions/${sid}/turns?wait=10`, body)).body;
    expect(turn.status).toBe('awaiting_permission');
    return (await t.api.get(`/v1/sessions/${sid}/permissions/${turn.pending[0]}`)).body;
  };

  it('a Write over an existing file shows the diff against the file as it is; a new file its lines; the answer says when the file changed meanwhile', async () => {
    const s = (await t.api.post('/v1/sessions', { tools: ['Read', 'Write', 'Edit', 'MultiEdit'] })).body;
    const fs = await import('node:fs/promises');
    const path = await import('node:path');
    await fs.writeFile(path.join(s.workspace, 'greet.json'), '{\n  "greeting": "hello",\n  "n": 1\n}\n');
    expect((await t.api.post(`/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ name: 'Read', input: { file_path: 'greet.json' } }] })).body.status).toBe('completed');
    const p = await pendingOf(s.id, { tool_uses: [{ name: 'Write', input: { file_path: 'greet.json', content: '{\n  "greeting": "hi",\n  "n": 1\n}\n' } }] });
    expect(p.preview).toMatchObject({ kind: 'diff', path: 'greet.json', operation: 'update', additions: 1, deletions: 1, before_sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(p.preview.diff).toBe('--- a/greet.json\n+++ b/greet.json\n@@ -1,4 +1,4 @@\n {\n-  "greeting": "hello",\n+  "greeting": "hi",\n   "n": 1\n }\n');
    // In the inbox too.
    const listed = (await t.api.get('/v1/pending')).body.items.find((i: any) => i.permission?.id === p.id);
    expect(listed.permission.preview.diff).toBe(p.preview.diff);
    // The file changes before the answer: the resolved request says the preview is stale.
    await fs.writeFile(path.join(s.workspace, 'greet.json'), 'changed by someone else\n');
    const answered = (await t.api.post(`/v1/sessions/${s.id}/permissions/${p.id}`, { behavior: 'allow' })).body;
    expect(answered.preview.stale).toBe(true);
    // …and the call was judged again as it is now: the Write refuses a file changed since it was read.
    const turn = (await t.api.get(`/v1/sessions/${s.id}/turns/${p.turn_id}?wait=10`)).body;
    expect(turn.results[0].is_error).toBe(true);

    const created = await pendingOf(s.id, { tool_uses: [{ name: 'Write', input: { file_path: 'new/a.txt', content: 'one\ntwo\n' } }] });
    expect(created.preview).toMatchObject({ kind: 'diff', operation: 'create', before_sha256: null, additions: 2, deletions: 0 });
    expect(created.preview.diff).toBe('--- /dev/null\n+++ b/new/a.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n');
    const ok = (await t.api.post(`/v1/sessions/${s.id}/permissions/${created.id}`, { behavior: 'deny' })).body;
    expect(ok.preview.stale).toBeUndefined();
  });

  it('Edit and MultiEdit show the result of every edit; one that cannot apply says so; binary and huge files are described, not diffed', async () => {
    const s = (await t.api.post('/v1/sessions', { tools: ['Read', 'Write', 'Edit', 'MultiEdit'] })).body;
    const fs = await import('node:fs/promises');
    const path = await import('node:path');
    await fs.writeFile(path.join(s.workspace, 'a.txt'), 'alpha\nbeta\ngamma\n');
    const edit = await pendingOf(s.id, { tool_uses: [{ name: 'Edit', input: { file_path: 'a.txt', old_string: 'beta', new_string: 'BETA' } }] });
    expect(edit.preview.diff).toContain('-beta\n+BETA');
    await t.api.post(`/v1/sessions/${s.id}/permissions/${edit.id}`, { behavior: 'deny' });
    const multi = await pendingOf(s.id, { tool_uses: [{ name: 'MultiEdit', input: { file_path: 'a.txt', edits: [{ old_string: 'alpha', new_string: 'A' }, { old_string: 'nothere', new_string: 'x' }] } }] });
    expect(multi.preview).toMatchObject({ kind: 'diff', not_shown: expect.stringContaining('edit 2 of 2') });
    await t.api.post(`/v1/sessions/${s.id}/permissions/${multi.id}`, { behavior: 'deny' });
    await fs.writeFile(path.join(s.workspace, 'bin.dat'), Buffer.from([0, 1, 2, 3, 255]));
    const bin = await pendingOf(s.id, { tool_uses: [{ name: 'Write', input: { file_path: 'bin.dat', content: 'text now' } }] });
    expect(bin.preview).toMatchObject({ binary: true, before_bytes: 5, after_bytes: 8, operation: 'update' });
    expect(bin.preview.diff).toBeUndefined();
    await t.api.post(`/v1/sessions/${s.id}/permissions/${bin.id}`, { behavior: 'deny' });
    // A long diff: cut, the whole of it an output of the call.
    const long = Array.from({ length: 3000 }, (_, i) => `line ${i}`).join('\n');
    const big = await pendingOf(s.id, { tool_uses: [{ name: 'Write', input: { file_path: 'long.txt', content: long } }] });
    expect(big.preview.truncated).toBe(true);
    expect(big.preview.diff.length).toBe(20_000);
    const full = await t.api.get(`/v1/sessions/${s.id}/outputs/${big.preview.output_id}`);
    expect(full.status).toBe(200);
    expect(full.text.split('\n').filter((l: string) => l.startsWith('+line')).length).toBe(3000);
    await t.api.post(`/v1/sessions/${s.id}/permissions/${big.id}`, { behavior: 'deny' });
  });

  it('a file a rule keeps from the session is never read for a preview; a link out of the workspace is refused', async () => {
    const s = (await t.api.post('/v1/sessions', { tools: ['Write'], disallowed_tools: ['Read(secret/**)'] })).body;
    const fs = await import('node:fs/promises');
    const path = await import('node:path');
    await fs.mkdir(path.join(s.workspace, 'secret'));
    await fs.writeFile(path.join(s.workspace, 'secret', 'key.txt'), 'TOPSECRET\n');
    const p = await pendingOf(s.id, { tool_uses: [{ name: 'Write', input: { file_path: 'secret/key.txt', content: 'x' } }] });
    expect(p.preview).toMatchObject({ kind: 'diff', before_sha256: null, not_shown: expect.stringContaining('Read(secret/**)') });
    expect(JSON.stringify(p)).not.toContain('TOPSECRET');
    await t.api.post(`/v1/sessions/${s.id}/permissions/${p.id}`, { behavior: 'deny' });
    const outside = await fs.mkdtemp(path.join((await import('node:os')).tmpdir(), 'norma-outside-'));
    try {
      await fs.writeFile(path.join(outside, 'etc.txt'), 'OUTSIDE\n');
      await fs.symlink(path.join(outside, 'etc.txt'), path.join(s.workspace, 'link.txt'));
      await fs.symlink(outside, path.join(s.workspace, 'dirlink'));
      for (const file of ['link.txt', 'dirlink/etc.txt']) {
        const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ name: 'Write', input: { file_path: file, content: 'x' } }] })).body;
        const req = turn.status === 'awaiting_permission' ? (await t.api.get(`/v1/sessions/${s.id}/permissions/${turn.pending[0]}`)).body : null;
        expect(JSON.stringify(req ?? turn)).not.toContain('OUTSIDE');
        if (req) await t.api.post(`/v1/sessions/${s.id}/permissions/${req.id}`, { behavior: 'deny' });
      }
    } finally {
      await fs.rm(outside, { recursive: true, force: true });
    }
  });

  it('a Bash compound command lists its parts: which only read, which rule allowed one, which part asks', async () => {
    const s = (await t.api.post('/v1/sessions', { tools: ['Bash'], allowed_tools: ['Bash(git status)'], ask_rules: ['Bash(npm publish:*)'] })).body;
    const p = await pendingOf(s.id, { tool_uses: [{ name: 'Bash', input: { command: 'ls -la && git status && rm -rf build; npm publish --tag next' } }] });
    expect(p.preview).toMatchObject({ kind: 'command', analysed: true, command: 'ls -la && git status && rm -rf build; npm publish --tag next' });
    const parts = p.preview.parts.map((x: any) => [x.command, x.verdict, x.decided_by, x.rule ?? null, x.asks]);
    expect(parts).toEqual([
      ['ls -la', 'allow', 'read_only', null, false],
      ['git status', 'allow', 'read_only', null, false],
      ['rm -rf build', 'ask', 'none', null, true],
      ['npm publish --tag next', 'ask', 'rule', 'Bash(npm publish:*)', true],
    ]);
    await t.api.post(`/v1/sessions/${s.id}/permissions/${p.id}`, { behavior: 'deny' });
    const two = await pendingOf(s.id, { tool_uses: [{ name: 'Bash', input: { command: 'cat README.md | tee out.txt > /dev/null' } }] });
    expect(two.preview.parts.find((x: any) => x.command.startsWith('tee')).asks).toBe(true);
    await t.api.post(`/v1/sessions/${s.id}/permissions/${two.id}`, { behavior: 'deny' });
  });

  it('Memory shows the diff against the memory file: create, str_replace, a replace that cannot apply, delete', async () => {
    const s = (await t.api.post('/v1/sessions', { tools: ['Memory'] })).body;
    const create = await pendingOf(s.id, { tool_uses: [{ name: 'Memory', input: { command: 'create', path: '/memories/notes.md', file_text: 'a\nb\n' } }] });
    expect(create.preview).toMatchObject({ kind: 'diff', path: '/memories/notes.md', operation: 'create', diff: '--- /dev/null\n+++ b//memories/notes.md\n@@ -0,0 +1,2 @@\n+a\n+b\n' });
    await t.api.post(`/v1/sessions/${s.id}/permissions/${create.id}`, { behavior: 'allow' });
    expect((await t.api.get(`/v1/sessions/${s.id}/turns/${create.turn_id}?wait=10`)).body.results[0].is_error).toBe(false);
    const replace = await pendingOf(s.id, { tool_uses: [{ name: 'Memory', input: { command: 'str_replace', path: '/memories/notes.md', old_str: 'b', new_str: 'B' } }] });
    expect(replace.preview).toMatchObject({ operation: 'update', additions: 1, deletions: 1 });
    expect(replace.preview.diff).toContain('-b\n+B');
    await t.api.post(`/v1/sessions/${s.id}/permissions/${replace.id}`, { behavior: 'deny' });
    const missing = await pendingOf(s.id, { tool_uses: [{ name: 'Memory', input: { command: 'str_replace', path: '/memories/notes.md', old_str: 'zzz', new_str: 'B' } }] });
    expect(missing.preview.not_shown).toContain('did not appear verbatim');
    await t.api.post(`/v1/sessions/${s.id}/permissions/${missing.id}`, { behavior: 'deny' });
    const del = await pendingOf(s.id, { tool_uses: [{ name: 'Memory', input: { command: 'delete', path: '/memories/notes.md' } }] });
    expect(del.preview).toMatchObject({ operation: 'delete', deletions: 2, additions: 0 });
    await t.api.post(`/v1/sessions/${s.id}/permissions/${del.id}`, { behavior: 'deny' });
  });

  it('WebFetch shows where it goes without looking the name up; ExitPlanMode its plan', async () => {
    const s = (await t.api.post('/v1/sessions', { tools: ['WebFetch', 'ExitPlanMode', 'EnterPlanMode'] })).body;
    const p = await pendingOf(s.id, { tool_uses: [{ name: 'WebFetch', input: { url: 'https://user:pw@secret-label.example.invalid:8443/x?q=1', prompt: 'read' } }] });
    expect(p.preview).toEqual({ kind: 'network', url: 'https://secret-label.example.invalid:8443/x?q=1', scheme: 'https', host: 'secret-label.example.invalid', port: 8443, address: null });
    await t.api.post(`/v1/sessions/${s.id}/permissions/${p.id}`, { behavior: 'deny' });
    const ip = await pendingOf(s.id, { tool_uses: [{ name: 'WebFetch', input: { url: 'http://192.0.2.7/', prompt: 'read' } }] });
    expect(ip.preview).toMatchObject({ host: '192.0.2.7', address: '192.0.2.7', port: 80, scheme: 'http' });
    await t.api.post(`/v1/sessions/${s.id}/permissions/${ip.id}`, { behavior: 'deny' });
    await t.api.patch(`/v1/sessions/${s.id}`, { permission_mode: 'plan' });
    const plan = await pendingOf(s.id, { tool_uses: [{ name: 'ExitPlanMode', input: { plan: '1. change x\n2. test' } }] });
    expect(plan.preview).toEqual({ kind: 'plan', plan: '1. change x\n2. test' });
  });
});
