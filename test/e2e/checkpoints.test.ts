// Checkpoints through the HTTP API: every call that may change the workspace is bracketed by
// checkpoints, whatever writes (file tools, Bash, a background task); a turn's changes and its
// diff; rewind (whole, by paths, dry run, conflicts and force, the rewind of a rewind); fork.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

type Api = TestServer['api'];

async function session(api: Api, extra: Record<string, unknown> = {}) {
  const res = await api.post('/v1/sessions', { allowed_tools: ['Write', 'Edit', 'Bash'], ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; workspace: string };
}

async function turn(api: Api, sid: string, toolUses: { id?: string; name: string; input: unknown }[]) {
  const res = await api.post(`/v1/sessions/${sid}/turns?wait=10`, { tool_uses: toolUses });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.status, JSON.stringify(res.body)).toBe('completed');
  for (const r of res.body.results) expect(r.is_error ?? false, JSON.stringify(r)).toBe(false);
  return res.body as { id: string; results: { is_error?: boolean; content: { text: string }[] }[] };
}

async function events(api: Api, sid: string, type: string) {
  const res = await api.get(`/v1/sessions/${sid}/export`);
  return (res.body.events as { type: string }[]).filter((e) => e.type === type) as Record<string, any>[];
}

describe('checkpoints', () => {
  it('bracket every call that may change the workspace, and tool.completed names what it changed, Bash included', async () => {
    t = await startServer();
    const s = await session(t.api);
    await fs.writeFile(path.join(s.workspace, 'keep.txt'), 'one\ntwo\n');
    const tr = await turn(t.api, s.id, [
      { id: 'w1', name: 'Write', input: { file_path: 'a.txt', content: 'alpha\n' } },
      { id: 'r1', name: 'Read', input: { file_path: 'keep.txt' } },
      { id: 'b1', name: 'Bash', input: { command: 'printf "x\\ny\\n" > made.txt && rm keep.txt && mkdir -p d && ln -s ../a.txt d/link && chmod +x made.txt' } },
    ]);
    const list = (await t.api.get(`/v1/sessions/${s.id}/checkpoints`)).body;
    expect(list.items.map((c: { reason: string; tool_use_id?: string }) => `${c.reason}:${c.tool_use_id ?? ''}`)).toEqual([
      'turn_start:',
      'before_call:w1',
      'after_call:w1',
      'before_call:b1',
      'after_call:b1',
      // Nothing changed after the last call: the end of the turn adds no checkpoint.
    ]);
    expect(list.items.every((c: { id: string; turn_id: string }) => /^ckpt_/.test(c.id) && c.turn_id === tr.id)).toBe(true);
    expect(list.next_cursor).toBeNull();

    const completed = await events(t.api, s.id, 'tool.completed');
    const byId = new Map(completed.map((e) => [e.tool_use_id, e]));
    expect(byId.get('r1')!.changes).toBeUndefined(); // read-only: no checkpoint, nothing said
    expect(byId.get('w1')!.changes).toMatchObject({ undoable: true, files: [{ path: 'a.txt', status: 'added', additions: 1, deletions: 0, binary: false }] });
    expect(byId.get('w1')!.changes.checkpoint_id).toBe(list.items[1].id);
    const bash = byId.get('b1')!.changes.files.map((f: { path: string; status: string }) => `${f.status} ${f.path}`);
    expect(bash).toEqual(['added d/link', 'deleted keep.txt', 'added made.txt']);

    const changes = (await t.api.get(`/v1/sessions/${s.id}/turns/${tr.id}/changes`)).body;
    expect(changes.files.map((f: { path: string; status: string }) => `${f.status} ${f.path}`)).toEqual(['added a.txt', 'added d/link', 'deleted keep.txt', 'added made.txt']);
    const diff = await fetch(`${t.url}/v1/sessions/${s.id}/turns/${tr.id}/changes`, { headers: { accept: 'text/x-diff' } });
    expect(diff.headers.get('content-type')).toBe('text/x-diff; charset=utf-8');
    const text = await diff.text();
    expect(text).toContain('diff --git a/a.txt b/a.txt\nnew file mode 100644');
    expect(text).toContain('+alpha');
    expect(text).toContain('deleted file mode 100644');
    expect(text).toContain('new file mode 100755'); // made.txt is executable
    expect(text).toContain('new file mode 120000'); // the link, as a link
  });

  it('see what a background task writes between calls, in the next checkpoint', async () => {
    t = await startServer();
    const s = await session(t.api);
    await turn(t.api, s.id, [{ name: 'Bash', input: { command: 'sleep 0.3; echo late > late.txt', run_in_background: true } }]);
    // The task writes after its call ended; the next turn's first checkpoint has it.
    for (let i = 0; i < 100; i++) {
      if (await fs.stat(path.join(s.workspace, 'late.txt')).catch(() => null)) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const second = await turn(t.api, s.id, [{ name: 'Write', input: { file_path: 'b.txt', content: 'b\n' } }]);
    const list = (await t.api.get(`/v1/sessions/${s.id}/checkpoints`)).body.items as { id: string; reason: string; turn_id: string }[];
    const start = list.find((c) => c.turn_id === second.id && c.reason === 'turn_start')!;
    const previousEnd = list[list.indexOf(start) - 1]!;
    const between = (await t.api.get(`/v1/sessions/${s.id}/changes?from=${previousEnd.id}&to=${start.id}`)).body;
    expect(between.files).toMatchObject([{ path: 'late.txt', status: 'added' }]);
  });

  it('the end of a turn records what changed after its last call: a person\'s write while the turn waited', async () => {
    t = await startServer();
    const res = await t.api.post('/v1/sessions', { allowed_tools: ['Write'] });
    const s = res.body as { id: string; workspace: string };
    const paused = await t.api.post(`/v1/sessions/${s.id}/turns?wait=10`, {
      tool_uses: [
        { id: 'w1', name: 'Write', input: { file_path: 'a.txt', content: 'a\n' } },
        { id: 'b1', name: 'Bash', input: { command: 'echo b > b.txt' } },
      ],
    });
    expect(paused.body.status).toBe('awaiting_permission');
    await fs.writeFile(path.join(s.workspace, 'person.txt'), 'written by a person\n');
    expect((await t.api.post(`/v1/sessions/${s.id}/permissions/${paused.body.pending[0]}`, { behavior: 'deny' })).status).toBe(200);
    let ended: { status: string } = paused.body;
    for (let i = 0; i < 200 && ended.status !== 'completed'; i++) {
      await new Promise((r) => setTimeout(r, 25));
      ended = (await t.api.get(`/v1/sessions/${s.id}/turns/${paused.body.id}`)).body;
    }
    expect(ended.status).toBe('completed');
    const list = (await t.api.get(`/v1/sessions/${s.id}/checkpoints`)).body.items as { id: string; reason: string; tool_use_id?: string }[];
    expect(list.map((c) => `${c.reason}:${c.tool_use_id ?? ''}`)).toEqual(['turn_start:', 'before_call:w1', 'after_call:w1', 'turn_end:']);
    const after = (await t.api.get(`/v1/sessions/${s.id}/changes?from=${list[2]!.id}&to=${list[3]!.id}`)).body;
    expect(after.files).toMatchObject([{ path: 'person.txt', status: 'added' }]);
    // The turn's changes run to its end: the person's file is in them.
    const turnChanges = (await t.api.get(`/v1/sessions/${s.id}/turns/${paused.body.id}/changes`)).body;
    expect(turnChanges.files.map((f: { path: string }) => f.path)).toEqual(['a.txt', 'person.txt']);
  });

  it('rewind a turn: dry run first, then the files, and the rewind of that rewind', async () => {
    t = await startServer();
    const s = await session(t.api);
    await fs.writeFile(path.join(s.workspace, 'app.txt'), 'v1\n');
    const tr = await turn(t.api, s.id, [
      { name: 'Read', input: { file_path: 'app.txt' } },
      { name: 'Edit', input: { file_path: 'app.txt', old_string: 'v1', new_string: 'v2' } },
      { name: 'Bash', input: { command: 'echo new > new.txt && rm -f nothing' } },
    ]);
    expect(await fs.readFile(path.join(s.workspace, 'app.txt'), 'utf8')).toBe('v2\n');

    const dry = await t.api.post(`/v1/sessions/${s.id}/rewind`, { to: tr.id, dry_run: true });
    expect(dry.status).toBe(200);
    expect(dry.body).toEqual({ restored: ['app.txt'], deleted: ['new.txt'], conflicts: [], skipped: [], checkpoint_id: null, dropped_turns: [], dry_run: true });
    expect(await fs.readFile(path.join(s.workspace, 'app.txt'), 'utf8')).toBe('v2\n'); // nothing changed

    const done = await t.api.post(`/v1/sessions/${s.id}/rewind`, { to: tr.id });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body).toMatchObject({ restored: ['app.txt'], deleted: ['new.txt'], conflicts: [], dry_run: false });
    expect(await fs.readFile(path.join(s.workspace, 'app.txt'), 'utf8')).toBe('v1\n');
    await expect(fs.stat(path.join(s.workspace, 'new.txt'))).rejects.toThrow();
    const [rewound] = await events(t.api, s.id, 'workspace.rewound');
    expect(rewound).toMatchObject({ to: expect.stringMatching(/^ckpt_/), checkpoint_id: done.body.checkpoint_id, restored: ['app.txt'], deleted: ['new.txt'], recovered: false });

    // Undo the rewind: back to the checkpoint it made first.
    const undo = await t.api.post(`/v1/sessions/${s.id}/rewind`, { to: done.body.checkpoint_id });
    expect(undo.status).toBe(200);
    expect(await fs.readFile(path.join(s.workspace, 'app.txt'), 'utf8')).toBe('v2\n');
    expect(await fs.readFile(path.join(s.workspace, 'new.txt'), 'utf8')).toBe('new\n');
  });

  it('a file changed since the last checkpoint by something else is a conflict (409 with the list) unless force; paths limit a rewind', async () => {
    t = await startServer();
    const s = await session(t.api);
    await fs.writeFile(path.join(s.workspace, 'a.txt'), 'a0\n');
    await fs.writeFile(path.join(s.workspace, 'b.txt'), 'b0\n');
    const tr = await turn(t.api, s.id, [
      { name: 'Read', input: { file_path: 'a.txt' } },
      { name: 'Read', input: { file_path: 'b.txt' } },
      { name: 'Write', input: { file_path: 'a.txt', content: 'a1\n' } },
      { name: 'Write', input: { file_path: 'b.txt', content: 'b1\n' } },
    ]);
    // A person edits b.txt after the turn.
    await fs.writeFile(path.join(s.workspace, 'b.txt'), 'b-by-hand\n');
    const refused = await t.api.post(`/v1/sessions/${s.id}/rewind`, { to: tr.id });
    expect(refused.status).toBe(409);
    expect(refused.body.conflicts).toEqual([{ path: 'b.txt', reason: expect.stringContaining('changed since') }]);
    expect(await fs.readFile(path.join(s.workspace, 'a.txt'), 'utf8')).toBe('a1\n'); // nothing was rewound

    // Only a.txt: no conflict.
    const some = await t.api.post(`/v1/sessions/${s.id}/rewind`, { to: tr.id, paths: ['a.txt'] });
    expect(some.status).toBe(200);
    expect(some.body.restored).toEqual(['a.txt']);
    expect(await fs.readFile(path.join(s.workspace, 'a.txt'), 'utf8')).toBe('a0\n');
    expect(await fs.readFile(path.join(s.workspace, 'b.txt'), 'utf8')).toBe('b-by-hand\n');

    // The checkpoints that rewind made saw b.txt as it was: a change made after them is the next conflict.
    await fs.writeFile(path.join(s.workspace, 'b.txt'), 'b-by-hand\n');
    await fs.writeFile(path.join(s.workspace, 'c.txt'), 'made by hand\n');
    const again = await t.api.post(`/v1/sessions/${s.id}/rewind`, { to: tr.id });
    expect(again.status).toBe(409);
    expect(again.body.conflicts.map((c: { path: string }) => c.path)).toEqual(['c.txt']);
    await fs.writeFile(path.join(s.workspace, 'b.txt'), 'b-by-hand-2\n');
    const forced = await t.api.post(`/v1/sessions/${s.id}/rewind`, { to: tr.id, force: true });
    expect(forced.status).toBe(200);
    expect(forced.body.conflicts.map((c: { path: string }) => c.path)).toEqual(['b.txt', 'c.txt']);
    expect(await fs.readFile(path.join(s.workspace, 'b.txt'), 'utf8')).toBe('b0\n');
    await expect(fs.stat(path.join(s.workspace, 'c.txt'))).rejects.toThrow();
    // The person's version is in the checkpoint the forced rewind made first.
    const back = await t.api.post(`/v1/sessions/${s.id}/rewind`, { to: forced.body.checkpoint_id, paths: ['b.txt'] });
    expect(back.status).toBe(200);
    expect(await fs.readFile(path.join(s.workspace, 'b.txt'), 'utf8')).toBe('b-by-hand-2\n');
  });

  it('refuses what it cannot do with a clear problem: unknown or foreign ids, escaping paths, a running turn, a session without checkpoints', async () => {
    t = await startServer();
    const a = await session(t.api);
    const b = await session(t.api);
    const ta = await turn(t.api, a.id, [{ name: 'Write', input: { file_path: 'x.txt', content: 'x\n' } }]);
    const ckptA = (await t.api.get(`/v1/sessions/${a.id}/checkpoints`)).body.items[0].id;
    await turn(t.api, b.id, [{ name: 'Write', input: { file_path: 'y.txt', content: 'y\n' } }]);
    for (const to of [ckptA, ta.id, 'ckpt_nothing']) {
      const r = await t.api.post(`/v1/sessions/${b.id}/rewind`, { to });
      expect(r.status, to).toBe(404);
      expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
    expect((await t.api.get(`/v1/sessions/${b.id}/changes?from=${ckptA}`)).status).toBe(404);
    expect((await t.api.get(`/v1/sessions/${b.id}/turns/${ta.id}/changes`)).status).toBe(404);
    expect((await t.api.post(`/v1/sessions/${b.id}/fork`, { at: ckptA })).status).toBe(404);
    for (const bad of ['/etc/passwd', '../a', 'a/../../b', '!x', '', 'a\u0000b']) {
      const r = await t.api.post(`/v1/sessions/${a.id}/rewind`, { to: ta.id, paths: [bad] });
      expect(r.status, bad).toBe(400);
    }
    expect((await t.api.post(`/v1/sessions/${a.id}/rewind`, { to: ta.id, extra: 1 })).status).toBe(400);

    const running = await t.api.post(`/v1/sessions/${a.id}/turns`, { tool_uses: [{ name: 'Bash', input: { command: 'sleep 1' } }] });
    expect(running.status).toBe(202);
    const busy = await t.api.post(`/v1/sessions/${a.id}/rewind`, { to: ta.id });
    expect(busy.status).toBe(409);
    expect(busy.body.detail).toContain('runs turn');
    await t.api.get(`/v1/sessions/${a.id}/turns/${running.body.id}?wait=10`);

    const off = await session(t.api, { checkpoints: false });
    expect(off).toMatchObject({ checkpoints: false });
    const toff = await turn(t.api, off.id, [{ name: 'Write', input: { file_path: 'z.txt', content: 'z\n' } }]);
    expect((await t.api.get(`/v1/sessions/${off.id}/checkpoints`)).body.items).toEqual([]);
    expect((await t.api.post(`/v1/sessions/${off.id}/rewind`, { to: toff.id })).status).toBe(409);
    const completed = await events(t.api, off.id, 'tool.completed');
    expect(completed[0]!.changes).toBeUndefined();
  });

  it('fork: a new session with the files as they were, the same settings; then both diverge', async () => {
    t = await startServer();
    const s = await session(t.api, { permission_mode: 'acceptEdits', ask_rules: ['Bash(rm:*)'] });
    const first = await turn(t.api, s.id, [{ name: 'Write', input: { file_path: 'f.txt', content: 'one\n' } }]);
    await turn(t.api, s.id, [{ name: 'Write', input: { file_path: 'f.txt', content: 'two\n' } }]);
    const second = (await t.api.get(`/v1/sessions/${s.id}/turns`)).body.items.find((x: { id: string }) => x.id !== first.id);
    const fork = await t.api.post(`/v1/sessions/${s.id}/fork`, { at: second.id });
    expect(fork.status, JSON.stringify(fork.body)).toBe(201);
    expect(fork.headers.get('location')).toBe(`/v1/sessions/${fork.body.id}`);
    expect(fork.body).toMatchObject({ permission_mode: 'acceptEdits', ask_rules: ['Bash(rm:*)'], forked_from: { session_id: s.id, checkpoint_id: expect.stringMatching(/^ckpt_/) } });
    expect(fork.body.workspace).not.toBe(s.workspace);
    expect(await fs.readFile(path.join(fork.body.workspace, 'f.txt'), 'utf8')).toBe('one\n');
    // Diverge: the fork writes, the parent does not see it.
    await turn(t.api, fork.body.id, [{ name: 'Write', input: { file_path: 'g.txt', content: 'fork\n' } }]);
    await expect(fs.stat(path.join(s.workspace, 'g.txt'))).rejects.toThrow();
    expect(await fs.readFile(path.join(s.workspace, 'f.txt'), 'utf8')).toBe('two\n');
    // Without `at`: the workspace now.
    const now = await t.api.post(`/v1/sessions/${s.id}/fork`, {});
    expect(now.status).toBe(201);
    expect(await fs.readFile(path.join(now.body.workspace, 'f.txt'), 'utf8')).toBe('two\n');
  });

  it('in a prompt session, conversation: true drops the turns from that point on; a fork carries the turns that had ended', async () => {
    t = await startServer();
    // The scripted model answers by how many replies the conversation holds: what the model is
    // sent shows in which reply comes back.
    const script = [
      { content: [{ type: 'tool_use', id: 'toolu_w', name: 'Write', input: { file_path: 'a.txt', content: 'one\n' } }] },
      { content: [{ type: 'text', text: 'reply 1' }] },
      { content: [{ type: 'text', text: 'reply 2' }] },
      { content: [{ type: 'text', text: 'reply 3' }] },
      { content: [{ type: 'text', text: 'reply 4' }] },
    ];
    const s = await session(t.api, { model: { provider: 'scripted', model: 'demo', script } });
    const prompt = async (sid: string, text: string) => {
      const r = await t!.api.post(`/v1/sessions/${sid}/turns?wait=10`, { prompt: text });
      expect(r.body.status, JSON.stringify(r.body)).toBe('completed');
      return r.body as { id: string; messages: { role: string; content: { text?: string }[] }[] };
    };
    const lastText = (turn: { messages: { role: string; content: { text?: string }[] }[] }) => turn.messages.at(-1)!.content[0]!.text;
    const one = await prompt(s.id, 'write it');
    expect(lastText(one)).toBe('reply 1');
    const two = await prompt(s.id, 'and then?');
    expect(lastText(two)).toBe('reply 2');

    // A fork before turn two: the files as they were then, the first turn's conversation.
    const fork = (await t.api.post(`/v1/sessions/${s.id}/fork`, { at: two.id })).body;
    expect(await fs.readFile(path.join(fork.workspace, 'a.txt'), 'utf8')).toBe('one\n');
    const forkTurns = (await t.api.get(`/v1/sessions/${fork.id}/turns`)).body.items as { id: string; session_id: string }[];
    expect(forkTurns).toHaveLength(1);
    expect(forkTurns[0]!.session_id).toBe(fork.id);
    expect(forkTurns[0]!.id).not.toBe(one.id);
    expect(lastText(await prompt(fork.id, 'go on'))).toBe('reply 2');

    // Rewinding the parent to before turn two with its conversation: turn two is dropped.
    const r = await t.api.post(`/v1/sessions/${s.id}/rewind`, { to: two.id, conversation: true });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.dropped_turns).toEqual([two.id]);
    expect((await t.api.get(`/v1/sessions/${s.id}/turns/${two.id}`)).body.rewound_at).toEqual(expect.any(String));
    expect(lastText(await prompt(s.id, 'again'))).toBe('reply 2');
    // Without the conversation, the transcript stays.
    const plain = await t.api.post(`/v1/sessions/${s.id}/rewind`, { to: one.id });
    expect(plain.body.dropped_turns).toEqual([]);
    expect(lastText(await prompt(s.id, 'and now?'))).toBe('reply 3');

    // A session without a model has no transcript to rewind.
    const direct = await session(t.api);
    const d = await turn(t.api, direct.id, [{ name: 'Write', input: { file_path: 'x', content: 'x' } }]);
    expect((await t.api.post(`/v1/sessions/${direct.id}/rewind`, { to: d.id, conversation: true })).status).toBe(400);
  });

  it('a call that changes more than 1,000 paths lists the first 1,000 and counts them all; GET …/changes lists them all', async () => {
    t = await startServer();
    const s = await session(t.api);
    const tr = await turn(t.api, s.id, [{ id: 'many', name: 'Bash', input: { command: 'mkdir many && for i in $(seq 1001); do echo $i > many/f$i; done' } }]);
    const [completed] = (await events(t.api, s.id, 'tool.completed')).filter((e) => e.tool_use_id === 'many');
    expect(completed!.changes.files).toHaveLength(1000);
    expect(completed!.changes.files_total).toBe(1001);
    expect((await t.api.get(`/v1/sessions/${s.id}/turns/${tr.id}/changes`)).body.files).toHaveLength(1001);
  });
});

