// The typed client (clients/typescript) against a running server: its types are what the
// committed document generates, and it drives a whole session — create, a call that asks,
// the approval, the result, a question, its answer — while its event reader follows, breaks
// off, and resumes with Last-Event-ID to the session's end.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fs from 'node:fs';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNormaClient, NormaStreamError, parseEventStream, type NormaEvent, type NormaClient } from '../../clients/typescript/src/index.js';
import { generateClientTypes } from '../../clients/typescript/generate.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { assertComponent } from '../helpers/contract.js';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

describe('the typed TypeScript client', () => {
  let t: TestServer;
  let norma: NormaClient;
  beforeAll(async () => {
    t = await startServer({ NORMA_SANDBOX: 'off', NORMA_TOKEN: 'client-test-token-0123456789' });
    norma = createNormaClient({ baseUrl: t.url, token: 'client-test-token-0123456789' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('has the types the committed OpenAPI document generates (npm run client:check)', async () => {
    const committed = fs.readFileSync(path.join(root, 'clients/typescript/src/schema.ts'), 'utf8');
    expect(committed).toBe(await generateClientTypes(path.join(root, 'openapi/openapi.json')));
  });

  it('drives create → ask → approve → result → question → answer, and the event reader resumes to session.closed', async () => {
    const created = await norma.POST('/v1/sessions', { body: { tools: ['Read', 'Write', 'AskUser'] } });
    expect(created.response.status).toBe(201);
    const session = created.data!;
    expect(session.permission_mode).toBe('default');
    expect(created.response.headers.get('location')).toBe(`/v1/sessions/${session.id}`);

    // Follow the events from the start, in the background.
    const seen: NormaEvent[] = [];
    const firstReader = (async () => {
      for await (const e of norma.events(session.id)) {
        seen.push(e);
        if (e.type === 'permission.requested') break; // break off mid-session
      }
    })();

    const posted = await norma.POST('/v1/sessions/{session_id}/turns', {
      params: { path: { session_id: session.id }, query: { wait: 5 } },
      body: { tool_uses: [{ id: 'toolu_w', name: 'Write', input: { file_path: 'hello.txt', content: 'Hello, client\n' } }] },
    });
    expect(posted.data!.status).toBe('awaiting_permission');
    const turnId = posted.data!.id;
    await firstReader;
    const asked = seen.find((e) => e.type === 'permission.requested');
    expect(asked?.type).toBe('permission.requested');
    const lastSeq = seen[seen.length - 1]!.seq;

    const pending = await norma.GET('/v1/sessions/{session_id}/permissions', { params: { path: { session_id: session.id }, query: { status: 'pending' } } });
    const request = pending.data!.items[0]!;
    expect(request.tool).toBe('Write');
    const answered = await norma.POST('/v1/sessions/{session_id}/permissions/{permission_id}', {
      params: { path: { session_id: session.id, permission_id: request.id } },
      body: { behavior: 'allow' },
    });
    expect(answered.data!.status).toBe('allowed');
    const read = await norma.GET('/v1/sessions/{session_id}/permissions/{permission_id}', { params: { path: { session_id: session.id, permission_id: request.id } } });
    expect(read.data).toMatchObject({ id: request.id, status: 'allowed', resolved_by: 'client', tool: 'Write' });
    const noSuch = await norma.GET('/v1/sessions/{session_id}/permissions/{permission_id}', { params: { path: { session_id: session.id, permission_id: 'perm_nope' } } });
    expect(noSuch.response.status).toBe(404);
    expect(noSuch.error?.detail).toMatch(/perm_nope/);

    const done = await norma.GET('/v1/sessions/{session_id}/turns/{turn_id}', { params: { path: { session_id: session.id, turn_id: turnId }, query: { wait: 5 } } });
    expect(done.data!.status).toBe('completed');
    const result = done.data!.results[0]!;
    expect(result.is_error).toBe(false);
    const block = result.content[0]!;
    // The content union is discriminated: narrowing on `type` reaches `text`.
    expect(block.type === 'text' ? block.text : '').toMatch(/Created hello\.txt/);

    const asking = await norma.POST('/v1/sessions/{session_id}/turns', {
      params: { path: { session_id: session.id }, query: { wait: 5 } },
      body: {
        tool_uses: [
          { id: 'toolu_q', name: 'AskUser', input: { questions: [{ question: 'Which colour?', options: [{ label: 'red' }, { label: 'blue' }] }] } },
        ],
      },
    });
    expect(asking.data!.status, JSON.stringify(asking.data!.results)).toBe('awaiting_input');
    const questions = await norma.GET('/v1/sessions/{session_id}/questions', { params: { path: { session_id: session.id }, query: { status: 'pending' } } });
    const q = questions.data!.items[0]!;
    const reply = await norma.POST('/v1/sessions/{session_id}/questions/{question_id}', {
      params: { path: { session_id: session.id, question_id: q.id } },
      body: { answers: { 'Which colour?': 'blue' } },
    });
    expect(reply.data!.status).toBe('answered');
    const readQ = await norma.GET('/v1/sessions/{session_id}/questions/{question_id}', { params: { path: { session_id: session.id, question_id: q.id } } });
    expect(readQ.data).toMatchObject({ id: q.id, status: 'answered', answers: { 'Which colour?': 'blue' } });
    const otherSession = await norma.GET('/v1/sessions/{session_id}/questions/{question_id}', { params: { path: { session_id: 'ses_other', question_id: q.id } } });
    expect(otherSession.response.status).toBe(404);
    const askDone = await norma.GET('/v1/sessions/{session_id}/turns/{turn_id}', {
      params: { path: { session_id: session.id, turn_id: asking.data!.id }, query: { wait: 5 } },
    });
    expect(askDone.data!.status).toBe('completed');

    const closed = await norma.DELETE('/v1/sessions/{session_id}', { params: { path: { session_id: session.id } } });
    expect(closed.response.ok).toBe(true);

    // Resume after the last event the first reader saw: the rest arrives once, in order, to the end.
    const rest: NormaEvent[] = [];
    for await (const e of norma.events(session.id, { lastEventId: lastSeq })) rest.push(e);
    expect(rest[0]!.seq).toBe(lastSeq + 1);
    for (let i = 1; i < rest.length; i++) expect(rest[i]!.seq).toBeGreaterThan(rest[i - 1]!.seq);
    expect(rest.at(-1)!.type).toBe('session.closed');
    const types = rest.map((e) => e.type);
    for (const expected of ['permission.resolved', 'tool.completed', 'turn.completed', 'question.asked', 'question.answered', 'session.closed'] as const) {
      expect(types).toContain(expected);
    }
    for (const e of [...seen, ...rest]) assertComponent('Event', e);
    const completed = rest.find((e) => e.type === 'tool.completed');
    expect(completed?.type === 'tool.completed' ? completed.result.tool_use_id : undefined).toBe('toolu_w');

    // A closed session with nothing left: the reader ends at once (the server answers 204).
    const after: NormaEvent[] = [];
    for await (const e of norma.events(session.id, { lastEventId: rest.at(-1)!.seq })) after.push(e);
    expect(after).toEqual([]);
  });

  it('an orchestrator follows the tenant stream and answers from the inbox: three sessions\' asks, each decided by its preview', async () => {
    const ac = new AbortController();
    const cursors: string[] = [];
    const decided: string[] = [];
    const mine = new Set<string>();
    const follower = (async () => {
      for await (const e of norma.tenantEvents({ types: ['permission.requested'], signal: ac.signal, onCursor: (c) => cursors.push(c) })) {
        if (e.type !== 'permission.requested' || !mine.has(e.session_id)) continue;
        const preview = e.permission.preview;
        const onlyReads = preview?.kind === 'command' && preview.parts.every((p) => p.read_only);
        const body = preview?.kind === 'diff' && preview.operation === 'create' ? { behavior: 'allow' as const } : onlyReads ? { behavior: 'allow' as const } : { behavior: 'deny' as const, message: 'not from here' };
        const r = await norma.POST('/v1/sessions/{session_id}/permissions/{permission_id}', { params: { path: { session_id: e.session_id, permission_id: e.permission.id } }, body });
        decided.push(`${e.permission.tool}:${r.data?.status}`);
      }
    })();
    // The follower opens from now: give it a moment to be live before anything asks.
    await new Promise((r) => setTimeout(r, 300));
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const s = (await norma.POST('/v1/sessions', { body: { tools: ['Write', 'Bash'], name: `orchestrated ${i}` } })).data!;
      ids.push(s.id);
      mine.add(s.id);
    }
    await norma.POST('/v1/sessions/{session_id}/turns', { params: { path: { session_id: ids[0]! } }, body: { tool_uses: [{ name: 'Write', input: { file_path: 'new.txt', content: 'x' } }] } });
    await norma.POST('/v1/sessions/{session_id}/turns', { params: { path: { session_id: ids[1]! } }, body: { tool_uses: [{ name: 'Bash', input: { command: 'rm -rf build' } }] } });
    await norma.POST('/v1/sessions/{session_id}/turns', { params: { path: { session_id: ids[2]! } }, body: { tool_uses: [{ name: 'Write', input: { file_path: 'other.txt', content: 'y' } }] } });
    for (let i = 0; i < 200 && decided.length < 3; i++) await new Promise((r) => setTimeout(r, 25));
    expect(decided.sort()).toEqual(['Bash:denied', 'Write:allowed', 'Write:allowed']);
    // Nothing of these sessions is left in the inbox.
    const left: string[] = [];
    for await (const item of norma.pending()) left.push(item.session.id);
    expect(left.filter((id) => mine.has(id))).toEqual([]);
    expect(cursors.length).toBeGreaterThanOrEqual(3);
    ac.abort();
    await follower;
  });

  it('returns problems typed as `error`, and the event reader stops on an error answer', async () => {
    const bad = await norma.POST('/v1/sessions', { body: { permission_mode: 'nope' as 'default' } });
    expect(bad.response.status).toBe(400);
    expect(bad.error?.errors?.[0]).toMatchObject({ path: '/permission_mode' });
    const missing = await norma.GET('/v1/sessions/{session_id}', { params: { path: { session_id: 'ses_nope' } } });
    expect(missing.response.status).toBe(404);
    expect(missing.error?.status).toBe(404);

    const unknown = createNormaClient({ baseUrl: t.url, token: 'not-the-token-at-all-000' });
    await expect(async () => {
      for await (const _ of unknown.events('ses_nope')) void _;
    }).rejects.toThrow(NormaStreamError);
  });

  it('parses the event-stream format: CRLF and CR line ends, comments, multi-line data, ids and retry', async () => {
    const text = 'retry: 900\n\n: comment\r\nretry: 1500\r\nid: 7\r\nevent: x\r\ndata: {"a":\r\ndata: 1}\r\n\r\nid: 8\rdata: {"b":2}\r\rdata: {"c":3}';
    const bytes = new TextEncoder().encode(text);
    // Fed in two-byte pieces, so every boundary falls inside a line somewhere.
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < bytes.length; i += 2) c.enqueue(bytes.slice(i, i + 2));
        c.close();
      },
    });
    const out = [];
    for await (const m of parseEventStream(body)) out.push(m);
    // The last event has no blank line after it: the stream ended in the middle of it, so it is dropped.
    expect(out).toEqual([
      { event: '', data: '', id: undefined, retry: 900 },
      { event: 'x', data: '{"a":\n1}', id: '7', retry: 1500 },
      { event: 'message', data: '{"b":2}', id: '8', retry: undefined },
    ]);
  });

  it('builds as a package of its own with the TypeScript compiler', () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'norma-client-build-'));
    try {
      execFileSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', path.join(root, 'clients/typescript/tsconfig.json'), '--outDir', out], {
        stdio: 'pipe',
      });
      expect(fs.existsSync(path.join(out, 'index.js'))).toBe(true);
      expect(fs.existsSync(path.join(out, 'index.d.ts'))).toBe(true);
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
    // A whole compile: beyond the default timeout on two busy cores.
  }, 90_000);
});
