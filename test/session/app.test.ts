// The session layer through its use cases, without HTTP: creation and restart recovery build a
// session's runtime with the same code; an answer and the rules it remembers take effect in one
// step; a paused turn survives a restart and goes on when answered.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { INTERNAL } from '../../src/app/scope.js';
import type { Turn } from '../../src/contract/schemas.js';
import { appHarness, type AppHarness } from '../helpers/app.js';

let h: AppHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const FILE_TOOLS = ['Read', 'Write', 'Edit', 'LS'];

async function settled(h: AppHarness, sessionId: string, turnId: string): Promise<Turn> {
  return h.app.turns.wait(INTERNAL, sessionId, turnId, 10);
}

describe('creation and recovery build the same runtime', () => {
  it('a restarted application has the session with the tools, rules and warnings it had', async () => {
    h = await appHarness();
    const s = await h.app.sessions.create(INTERNAL, { tools: FILE_TOOLS, allowed_tools: ['Read'], ask_rules: ['Edit(docs/**)'] });
    const tools = h.app.sessions.tools(INTERNAL, s.id).map((t) => t.name);
    expect(tools).toEqual(FILE_TOOLS);
    h = await h.restart();
    const out = await h.app.recovery.recover(INTERNAL);
    expect(out).toEqual({ sessions: 1, resumed: 0, interrupted: 0 });
    expect(h.app.sessions.tools(INTERNAL, s.id).map((t) => t.name)).toEqual(tools);
    const again = h.app.sessions.get(INTERNAL, s.id);
    expect(again).toMatchObject({ status: 'active', allowed_tools: ['Read'], ask_rules: ['Edit(docs/**)'], warnings: s.warnings });
    // The recovered runtime runs turns: the rules it was built with are in force.
    const t = h.app.turns.start(INTERNAL, s.id, { tool_uses: [{ name: 'LS', input: { path: '.' } }] });
    expect((await settled(h, s.id, t.id)).status).toBe('completed');
  });

  it('a session whose workspace is gone after a restart is closed, its open turn answered', async () => {
    h = await appHarness();
    const s = await h.app.sessions.create(INTERNAL, { tools: FILE_TOOLS });
    const t = h.app.turns.start(INTERNAL, s.id, { tool_uses: [{ name: 'Write', input: { file_path: 'a.txt', content: 'x' } }] });
    expect((await settled(h, s.id, t.id)).status).toBe('awaiting_permission');
    h = await h.restart();
    await fs.rm(s.workspace, { recursive: true, force: true });
    expect(await h.app.recovery.recover(INTERNAL)).toEqual({ sessions: 0, resumed: 0, interrupted: 0 });
    expect(h.app.sessions.get(INTERNAL, s.id).status).toBe('closed');
    const turn = h.app.turns.get(INTERNAL, s.id, t.id);
    expect(turn.status).toBe('interrupted');
    expect(turn.results).toHaveLength(1);
    expect(h.app.interactions.listPermissions(INTERNAL, s.id, 'pending')).toEqual([]);
  });

  it('a turn paused on a person survives the restart and goes on when answered', async () => {
    h = await appHarness();
    const s = await h.app.sessions.create(INTERNAL, { tools: FILE_TOOLS });
    const t = h.app.turns.start(INTERNAL, s.id, { tool_uses: [{ name: 'Write', input: { file_path: 'a.txt', content: 'kept' } }] });
    expect((await settled(h, s.id, t.id)).status).toBe('awaiting_permission');
    const [perm] = h.app.interactions.listPermissions(INTERNAL, s.id, 'pending');
    h = await h.restart();
    expect(await h.app.recovery.recover(INTERNAL)).toEqual({ sessions: 1, resumed: 1, interrupted: 0 });
    // The same request is waited on again, not a second one; it can be answered at once, before
    // the resumed call has come back to its ask.
    expect(h.app.interactions.listPermissions(INTERNAL, s.id, 'pending').map((p) => p.id)).toEqual([perm!.id]);
    h.app.interactions.answerPermission(INTERNAL, s.id, perm!.id, { behavior: 'allow' });
    const done = await settled(h, s.id, t.id);
    expect(done.status).toBe('completed');
    expect(done.results[0]!.is_error).toBe(false);
    expect(await fs.readFile(path.join(s.workspace, 'a.txt'), 'utf8')).toBe('kept');
  });
});

describe('answering a request', () => {
  it('remembered rules are in force when the call goes on: its next evaluation is decided by them', async () => {
    h = await appHarness();
    const s = await h.app.sessions.create(INTERNAL, { tools: FILE_TOOLS });
    const t = h.app.turns.start(INTERNAL, s.id, { tool_uses: [{ name: 'Write', input: { file_path: 'a.txt', content: 'x' } }] });
    await settled(h, s.id, t.id);
    const [perm] = h.app.interactions.listPermissions(INTERNAL, s.id, 'pending');
    const answered = h.app.interactions.answerPermission(INTERNAL, s.id, perm!.id, { behavior: 'allow', remember: ['Write(a.txt)'] });
    expect(answered.status).toBe('allowed');
    // Stored together: the session already has the rule when the answer returns.
    expect(h.app.sessions.get(INTERNAL, s.id).rules.map((r) => [r.rule, r.source])).toEqual([['Write(a.txt)', 'remember']]);
    await settled(h, s.id, t.id);
    const trail = h.app.audit.decisions(INTERNAL, s.id, { afterSeq: 0, limit: 10 }).items.map((d) => [d.decided_by, d.rules]);
    expect(trail).toEqual([
      ['mode', []],
      ['person', []],
      ['rule', ['Write(a.txt)']],
    ]);
    // The resolution is announced before the session change it carried.
    const types = h.seen.filter((e) => e.session_id === s.id).map((e) => e.type);
    expect(types.indexOf('permission.resolved')).toBeLessThan(types.indexOf('session.updated'));
  });

  it('a bad rule to remember is refused and the request stays pending with its call waiting', async () => {
    h = await appHarness();
    const s = await h.app.sessions.create(INTERNAL, { tools: FILE_TOOLS });
    const t = h.app.turns.start(INTERNAL, s.id, { tool_uses: [{ name: 'Write', input: { file_path: 'a.txt', content: 'x' } }] });
    await settled(h, s.id, t.id);
    const [perm] = h.app.interactions.listPermissions(INTERNAL, s.id, 'pending');
    expect(() => h!.app.interactions.answerPermission(INTERNAL, s.id, perm!.id, { behavior: 'allow', remember: ['Write('] })).toThrow(
      expect.objectContaining({ kind: 'invalid' }),
    );
    expect(h.app.interactions.listPermissions(INTERNAL, s.id, 'pending').map((p) => p.id)).toEqual([perm!.id]);
    h.app.interactions.answerPermission(INTERNAL, s.id, perm!.id, { behavior: 'deny', message: 'no' });
    const done = await settled(h, s.id, t.id);
    expect((done.results[0]!.content[0] as { text: string }).text).toBe('Permission denied by the user: no');
    expect(() => h!.app.interactions.answerPermission(INTERNAL, s.id, perm!.id, { behavior: 'allow' })).toThrow(
      expect.objectContaining({ kind: 'conflict' }),
    );
  });

  it('a mode change decides a waiting request without a person', async () => {
    h = await appHarness();
    const s = await h.app.sessions.create(INTERNAL, { tools: FILE_TOOLS });
    const t = h.app.turns.start(INTERNAL, s.id, { tool_uses: [{ name: 'Write', input: { file_path: 'a.txt', content: 'x' } }] });
    await settled(h, s.id, t.id);
    h.app.sessions.patch(INTERNAL, s.id, { permission_mode: 'acceptEdits' });
    await vi.waitFor(() => expect(h!.app.turns.get(INTERNAL, s.id, t.id).status).toBe('completed'));
    expect(h.app.interactions.listPermissions(INTERNAL, s.id)[0]).toMatchObject({ status: 'allowed', resolved_by: 'rule' });
  });
});
