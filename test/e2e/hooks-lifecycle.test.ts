// Operator (in-process) hooks around the whole service: SessionStart on create, SessionEnd on
// DELETE and on shutdown, PreToolUse/PostToolUse around calls made over HTTP.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { HookInput } from '../../src/hooks/registry.js';
import { startServer, type TestServer } from '../helpers/server.js';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('operator hooks through the API', () => {
  it('SessionStart fires on create and SessionEnd once on close', async () => {
    const seen: HookInput[] = [];
    t = await startServer({}, {
      hooks: [
        { event: 'SessionStart', callback: (i) => void seen.push(i) },
        { event: 'SessionEnd', callback: (i) => void seen.push(i) },
      ],
    });
    const s = (await t.api.post('/v1/sessions', {})).body;
    // Two closes at once, then a third: one SessionEnd.
    const both = await Promise.all([t.api.delete(`/v1/sessions/${s.id}`), t.api.delete(`/v1/sessions/${s.id}`)]);
    expect(both.map((r) => r.status)).toEqual([204, 204]);
    await t.api.delete(`/v1/sessions/${s.id}`);
    expect(seen.map((i) => [i.hook_event_name, i.session_id])).toEqual([
      ['SessionStart', s.id],
      ['SessionEnd', s.id],
    ]);
    expect(seen[1]!.reason).toBe('closed by the client');
    expect(seen[0]!.cwd).toBe(s.workspace);
  });

  it('SessionEnd fires for every open session on shutdown', async () => {
    const ended: string[] = [];
    const server = await startServer({}, { hooks: [{ event: 'SessionEnd', callback: (i) => void ended.push(`${i.session_id}:${i.reason}`) }] });
    const a = (await server.api.post('/v1/sessions', {})).body.id;
    const b = (await server.api.post('/v1/sessions', {})).body.id;
    await server.close();
    expect(ended.sort()).toEqual([`${a}:server shutdown`, `${b}:server shutdown`].sort());
  });

  it('a PreToolUse hook blocks a call made over HTTP and PostToolUse sees the result', async () => {
    const post: string[] = [];
    t = await startServer({}, {
      hooks: [
        {
          event: 'PreToolUse',
          matcher: 'Write|Edit',
          callback: (i) => ((i.tool_input as { file_path: string }).file_path.endsWith('.env') ? { block: true, reason: 'no .env files' } : undefined),
        },
        { event: 'PostToolUse', callback: (i) => void post.push(`${i.tool_name}:${i.tool_use_id}`) },
      ],
    });
    const s = (await t.api.post('/v1/sessions', { permission_mode: 'acceptEdits' })).body;
    const res = await t.api.post(`/v1/sessions/${s.id}/turns?wait=5`, {
      tool_uses: [
        { id: 'a', name: 'Write', input: { file_path: '.env', content: 'SECRET=1' } },
        { id: 'b', name: 'Write', input: { file_path: 'ok.txt', content: 'fine' } },
      ],
    });
    expect(res.body.results[0].content[0].text).toBe('Blocked by PreToolUse hook: no .env files');
    expect(res.body.results[1].is_error).toBe(false);
    await expect(fs.stat(path.join(s.workspace, '.env'))).rejects.toThrow();
    expect(post).toEqual(['Write:b']);
  });
});
