// A live session's settings: the record in force follows the store only once a write commits,
// several changes in one transaction all count, rule changes re-evaluate waiting requests, and
// a tool's effects are checked before anything is stored.
import { NO_POLICIES } from '../../src/tenants/policy.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Session } from '../../src/contract/schemas.js';
import { EventLog } from '../../src/events/log.js';
import { systemClock } from '../../src/ids.js';
import { SessionSettings } from '../../src/session/settings.js';
import type { SessionRecord } from '../../src/store/store.js';
import { SqliteStore } from '../../src/store/sqlite.js';

const ORIGIN = { turnId: 'turn_1', toolUseId: 'toolu_1' };
let dir: string;
let store: SqliteStore;
let changed: string[];
let settings: SessionSettings;

function record(): SessionRecord {
  const session: Session = {
    id: 'ses_1', status: 'active', name: null, labels: {}, tenant: 'default', policy: null, workspace: '/ws', workspace_owned: true, permission_mode: 'default',
    allowed_tools: [], disallowed_tools: [], ask_rules: [], rules: [], tools: ['Read'], output_cap_chars: 30000,
    permission_timeout_s: null, question_timeout_s: null, mode_before_plan: null, memory_store: null, skills: [], used_skills: [], unlocked_tools: [], deferred_tools: [], client_tools: [], mcp_servers: {}, instructions: [], sandbox: 'off', hook_events: [], model: null, system_prompt: null, sandbox_network: false,
        secret_names: [], checkpoints: false, forked_from: null, budget: null, usage: { input_tokens: 0, output_tokens: 0, cost_usd: 0, model_calls: 0 }, compaction: { auto: true, threshold: 0.8 },
    limits: { enforcement: 'none', memory_bytes: 1 << 30, processes: 64, cpu_weight: 50, file_size_bytes: 1 << 30, open_files: 256, disk_bytes: 1 << 30 },
    active_turn_id: null, warnings: [], created_at: new Date().toISOString(), closed_at: null,
  };
  return { session, hooks: null, modelApiKey: null, model: null };
}

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'norma-settings-'));
  store = new SqliteStore(path.join(dir, 'db.sqlite'));
  const r = record();
  store.putSession(r);
  changed = [];
  settings = new SessionSettings(r, { store, events: new EventLog(store, systemClock), policies: NO_POLICIES, onPermissionChange: (id) => changed.push(id) });
});
afterEach(() => {
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('session settings', () => {
  it('a rolled-back write leaves the mode and rules in force exactly as stored', () => {
    expect(() =>
      store.transaction(() => {
        settings.update((s) => {
          s.permission_mode = 'bypassPermissions';
        });
        throw new Error('disk full');
      }),
    ).toThrow('disk full');
    expect(settings.permission().mode).toBe('default');
    expect(settings.session.permission_mode).toBe('default');
    expect(store.getSession('ses_1')!.session.permission_mode).toBe('default');
    expect(changed).toEqual([]);
  });

  it('changes made in one transaction are all kept, and the rules are parsed once it commits', () => {
    store.transaction(() => {
      settings.update((s) => {
        s.allowed_tools = ['Read'];
      });
      settings.remember(['Write(a.txt)'], 'now');
      // Not in force until the commit.
      expect(settings.permission().rules.allow).toEqual([]);
    });
    expect(settings.permission().rules.allow.map((r) => r.text)).toEqual(['Read', 'Write(a.txt)']);
    expect(store.getSession('ses_1')!.session.allowed_tools).toEqual(['Read']);
    expect(changed).toEqual(['ses_1']);
  });

  it('only a change of mode or rules re-evaluates waiting requests', () => {
    settings.update((s) => {
      s.warnings = ['w'];
    });
    expect(changed).toEqual([]);
    settings.remember(['Read'], 'now');
    settings.remember(['Read'], 'later'); // already there: kept once, nothing changes
    expect(settings.session.rules).toHaveLength(1);
    expect(changed).toEqual(['ses_1']);
  });

  it('applies a tool\'s effects together, and a bad rule among them changes nothing', () => {
    expect(() =>
      settings.applyEffects(
        [
          { kind: 'set_mode', mode: 'plan' },
          { kind: 'add_rules', behavior: 'allow', rules: ['Bash('] },
        ],
        'now',
        ORIGIN,
      ),
    ).toThrow(expect.objectContaining({ kind: 'invalid' }));
    expect(settings.session.permission_mode).toBe('default');
    settings.applyEffects(
      [
        { kind: 'set_mode', mode: 'plan' },
        { kind: 'add_rules', behavior: 'deny', rules: ['Bash(rm *)'] },
      ],
      'now',
      ORIGIN,
    );
    expect(settings.permission().mode).toBe('plan');
    expect(settings.session.rules).toEqual([{ rule: 'Bash(rm *)', behavior: 'deny', source: 'tool', added_at: 'now' }]);
    expect(store.eventsAfter('ses_1', 0, 10).map((e) => e.type)).toEqual(['session.updated']);
  });

  it('remembers the mode before plan mode, and forgets it on the way out', () => {
    settings.update((s) => {
      s.permission_mode = 'acceptEdits';
    });
    settings.applyEffects([{ kind: 'set_mode', mode: 'plan' }], 'now', ORIGIN);
    expect(settings.session.mode_before_plan).toBe('acceptEdits');
    // Staying in plan mode keeps it; a second entry does not overwrite it with `plan`.
    settings.applyEffects([{ kind: 'set_mode', mode: 'plan' }], 'now', ORIGIN);
    expect(settings.session.mode_before_plan).toBe('acceptEdits');
    settings.update((s) => {
      s.permission_mode = 'default';
    });
    expect(settings.session.mode_before_plan).toBeNull();
    expect(store.getSession('ses_1')!.session.mode_before_plan).toBeNull();
  });

  it('stores a todo list with its own event, and a used skill with its unlocks, durably', () => {
    const items = [{ content: 'Run the tests', status: 'in_progress' as const, activeForm: 'Running the tests' }];
    settings.applyEffects([{ kind: 'set_todos', items }], '2026-01-01T00:00:00.000Z', ORIGIN);
    expect(settings.todos()).toEqual({ items, updated_at: '2026-01-01T00:00:00.000Z' });
    expect(store.getSession('ses_1')!.todos).toEqual({ items, updated_at: '2026-01-01T00:00:00.000Z' });
    const events = store.eventsAfter('ses_1', 0, 10);
    // A todo list is not a change of the session resource: no session.updated.
    expect(events.map((e) => e.type)).toEqual(['todo.updated']);
    expect(events[0]).toMatchObject({ turn_id: 'turn_1', tool_use_id: 'toolu_1', items });

    settings.applyEffects([{ kind: 'use_skill', skill: 'deploy', unlock: ['WebFetch', 'mcp__ci__*'] }], 'now', ORIGIN);
    settings.applyEffects([{ kind: 'use_skill', skill: 'deploy', unlock: ['WebFetch'] }], 'now', ORIGIN);
    const stored = store.getSession('ses_1')!.session;
    expect(stored.used_skills).toEqual(['deploy']);
    expect(stored.unlocked_tools).toEqual(['WebFetch', 'mcp__ci__*']);
    expect(store.eventsAfter('ses_1', 1, 10).map((e) => e.type)).toEqual(['session.updated', 'session.updated']);
  });
});
