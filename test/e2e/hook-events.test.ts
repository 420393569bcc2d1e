// The hook events beyond the first eight, through the HTTP API, each fired with its input and
// doing what it may: PermissionRequest deciding in a person's place (or leaving it to one),
// PermissionDenied told of denials, Notification told when a person is needed or a budget is near,
// SubagentStop with the subagent's answer, StopFailure with a failed turn's error, PostToolBatch
// after a model response's calls (context for the model, or a stop). PreCompact and PostCompact are
// in compaction.test.ts. Each run is in the audit trail; sessions take the new events too.
import fs from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { HookInput, HookOutput, HookRegistration } from '../../src/hooks/registry.js';
import { startServer, type TestServer, closeAll } from '../helpers/server.js';

let servers: TestServer[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await closeAll(servers);
  servers = [];
  for (const d of dirs.splice(0)) await fs.rm(d, { recursive: true, force: true });
});

const text = (t: string) => ({ type: 'text', text: t });
const use = (id: string, name: string, input: unknown) => ({ type: 'tool_use', id, name, input });

/** A server whose operator hooks record every input they get, answering with `answer`. */
async function boot(answer: (input: HookInput) => HookOutput | void = () => undefined, env: Record<string, string> = {}) {
  const seen: HookInput[] = [];
  const events = ['PermissionRequest', 'PermissionDenied', 'Notification', 'SubagentStop', 'StopFailure', 'PostToolBatch'] as const;
  const hooks: HookRegistration[] = events.map((event) => ({ event, name: `rec-${event}`, callback: (input) => (seen.push(input), answer(input)) }));
  const t = await startServer(env, { hooks });
  servers.push(t);
  return { t, seen, of: (event: string) => seen.filter((i) => i.hook_event_name === event) };
}

async function until<T>(fn: () => T | undefined | Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const v = await fn();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('timed out');
}

describe('hook events', () => {
  it('PermissionRequest may allow in a person\'s place; the decision says `hook`', async () => {
    const { t, of } = await boot((i) => (i.hook_event_name === 'PermissionRequest' ? { decision: 'allow', reason: 'trusted file' } : undefined));
    const s = (await t.api.post('/v1/sessions', { tools: ['Write'] })).body;
    const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ id: 'toolu_w', name: 'Write', input: { file_path: 'a.txt', content: 'x' } }] })).body;
    expect(turn.status).toBe('completed');
    expect(turn.results[0].is_error).toBe(false);
    expect(of('PermissionRequest')[0]).toMatchObject({ tool_name: 'Write', tool_use_id: 'toolu_w', tool_input: { file_path: 'a.txt', content: 'x' }, permission_suggestions: expect.any(Array) });
    // Nobody was asked, and no Notification went out.
    expect((await t.api.get(`/v1/sessions/${s.id}/permissions`)).body.items).toEqual([]);
    expect(of('Notification')).toEqual([]);
    const decisions = (await t.api.get(`/v1/sessions/${s.id}/decisions`)).body.items as { behavior: string; decided_by: string; reason: string }[];
    expect(decisions.filter((d) => d.behavior === 'allow').map((d) => d.decided_by)).toEqual(['hook', 'hook']);
    expect(decisions.some((d) => d.reason.includes('PermissionRequest hook rec-PermissionRequest allowed it: trusted file'))).toBe(true);
    const runs = (await t.api.get(`/v1/sessions/${s.id}/hook-runs`)).body.items as { event: string }[];
    expect(runs.some((r) => r.event === 'PermissionRequest')).toBe(true);
  });

  it('PermissionRequest may deny; PermissionDenied is told of that denial and of a rule\'s', async () => {
    const { t, of } = await boot((i) => (i.hook_event_name === 'PermissionRequest' ? { decision: 'deny', reason: 'not in prod' } : undefined));
    const s = (await t.api.post('/v1/sessions', { tools: ['Write', 'LS'], disallowed_tools: ['LS'] })).body;
    const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=10`, {
      tool_uses: [
        { id: 'toolu_w', name: 'Write', input: { file_path: 'a.txt', content: 'x' } },
        { id: 'toolu_l', name: 'LS', input: { path: '.' } },
      ],
    })).body;
    expect(turn.results.map((r: { is_error: boolean }) => r.is_error)).toEqual([true, true]);
    expect(turn.results[0].content[0].text).toContain('not in prod');
    const denied = await until(() => (of('PermissionDenied').length >= 2 ? of('PermissionDenied') : undefined)).catch(() => {
      throw new Error(`PermissionDenied got ${JSON.stringify(of('PermissionDenied'))}; results ${JSON.stringify(turn.results)}`);
    });
    expect(denied.map((d) => [d.tool_name, d.decided_by]).sort()).toEqual([['LS', 'rule'], ['Write', 'hook']]);
  });

  it('a PermissionRequest hook that says nothing leaves it to a person, and Notification says one is needed', async () => {
    const { t, of } = await boot();
    const s = (await t.api.post('/v1/sessions', { tools: ['Write', 'AskUser'] })).body;
    const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=5`, { tool_uses: [{ id: 'toolu_w', name: 'Write', input: { file_path: 'a.txt', content: 'x' } }] })).body;
    expect(turn.status).toBe('awaiting_permission');
    const note = await until(() => of('Notification')[0]);
    expect(note).toMatchObject({ notification_type: 'permission_prompt', turn_id: turn.id, message: expect.stringContaining('Write needs a person\'s permission') });
    await t.api.post(`/v1/sessions/${s.id}/turns/${turn.id}/cancel`, {});
    const q = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=5`, {
      tool_uses: [{ name: 'AskUser', input: { questions: [{ question: 'Ship it?', header: 'Ship', options: [{ label: 'yes', description: 'y' }, { label: 'no', description: 'n' }], multiSelect: false }] } }],
    })).body;
    expect(q.status).toBe('awaiting_input');
    expect(await until(() => of('Notification').find((n) => n.notification_type === 'question'))).toMatchObject({ message: expect.stringContaining('Ship it?') });
  });

  it('SubagentStop gets the subagent\'s answer; PostToolBatch sees each model response\'s calls and its context reaches the model', async () => {
    const { t, of } = await boot((i) => (i.hook_event_name === 'PostToolBatch' ? { additionalContext: `batch of ${i.tool_calls!.length}` } : undefined));
    const s = (
      await t.api.post('/v1/sessions', {
        model: {
          provider: 'scripted',
          model: 'demo',
          script: [{ content: [use('toolu_a', 'Agent', { description: 'look', prompt: 'look' }), use('toolu_l', 'LS', { path: '.' })] }, { content: [text('done')] }],
          subagent_script: [{ content: [text('nothing there')] }],
        },
        tools: ['LS', 'Agent'],
        allowed_tools: ['LS', 'Agent'],
      })
    ).body;
    const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=10`, { prompt: 'go' })).body;
    expect(turn.status).toBe('completed');
    expect(of('SubagentStop')[0]).toMatchObject({ agent_id: 'agent_toolu_a', last_assistant_message: 'nothing there', stop_hook_active: false });
    expect(of('PostToolBatch')[0]!.tool_calls).toEqual([
      { tool_use_id: 'toolu_a', tool_name: 'Agent', is_error: false },
      { tool_use_id: 'toolu_l', tool_name: 'LS', is_error: false },
    ]);
    // The hook's context is the message after the results, which the model saw.
    expect(turn.messages[3]).toEqual({ role: 'user', content: [text('batch of 2')] });
  });

  it('PostToolBatch continue:false stops the loop; StopFailure is told of a failed turn', async () => {
    const { t, of } = await boot((i) => (i.hook_event_name === 'PostToolBatch' ? { continue: false, stopReason: 'enough' } : undefined));
    const s = (await t.api.post('/v1/sessions', { model: { provider: 'scripted', model: 'demo', script: [{ content: [use('toolu_l', 'LS', { path: '.' })] }, { content: [text('more')] }] }, tools: ['LS'], allowed_tools: ['LS'] })).body;
    const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=10`, { prompt: 'go' })).body;
    expect(turn).toMatchObject({ status: 'cancelled', model_calls: 1, error: { code: 'stopped_by_hook' } });
    const failing = (await t.api.post('/v1/sessions', { model: { provider: 'scripted', model: 'demo', script: [{ error: 'the model is down' }] } })).body;
    const failed = (await t.api.post(`/v1/sessions/${failing.id}/turns?wait=10`, { prompt: 'go' })).body;
    expect(failed.status).toBe('failed');
    expect(await until(() => of('StopFailure')[0])).toMatchObject({ turn_id: failed.id, error_code: 'provider_script', error: expect.stringContaining('the model is down') });
  });

  it('sessions and tenants may hook the new events (the same shapes, layering and audit as the first eight)', async () => {
    const t = await startServer({});
    servers.push(t);
    const hooks = Object.fromEntries(['PermissionRequest', 'PermissionDenied', 'Notification', 'SubagentStop', 'StopFailure', 'PreCompact', 'PostCompact', 'PostToolBatch'].map((e) => [e, [{ hooks: [{ type: 'command', command: 'true' }] }]]));
    const res = await t.api.post('/v1/sessions', { hooks });
    expect(res.status).toBe(201);
    expect([...res.body.hook_events].sort()).toEqual(Object.keys(hooks).sort());
    expect((await t.api.post('/v1/sessions', { hooks: { PostCompactt: [{ hooks: [{ type: 'command', command: 'true' }] }] } })).status).toBe(400);
  });
});
