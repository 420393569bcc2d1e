// The console's small pure pieces: answers' bodies, formatting, routes, shortcuts, scopes,
// problem messages, the live sessions list, the event types it listens for.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { allowAnswer, denyAnswer, questionAnswer } from '../../console/src/lib/answers.js';
import { canAnswer, canWrite, isAdmin } from '../../console/src/lib/access.js';
import { EVENT_TYPES, LIVE_ONLY, summarize } from '../../console/src/lib/events.js';
import { collapsedSummary, formatCount, formatDateTime, isLong, prettyJson, truncationNote, truncationsOf } from '../../console/src/lib/format.js';
import { ApiError, errorFromAnswer } from '../../console/src/lib/problem.js';
import { parseRoute, sessionHref } from '../../console/src/lib/route.js';
import { appendPage, refreshFirstPage } from '../../console/src/lib/sessions-list.js';
import { shortcutOf } from '../../console/src/lib/shortcuts.js';
import type { NormaEvent, Session } from '../../console/src/lib/types.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('permission answers', () => {
  it('allow carries the checked rules and, for a plan, the chosen mode', () => {
    expect(allowAnswer([])).toEqual({ behavior: 'allow' });
    expect(allowAnswer(['Write(a.txt)'])).toEqual({ behavior: 'allow', remember: ['Write(a.txt)'] });
    expect(allowAnswer([], 'acceptEdits')).toEqual({ behavior: 'allow', mode: 'acceptEdits' });
    expect(allowAnswer([], '')).toEqual({ behavior: 'allow' });
    expect(allowAnswer([], 'plan')).toEqual({ behavior: 'allow' });
  });

  it('deny carries a message and interrupt only when given', () => {
    expect(denyAnswer('  ', false)).toEqual({ behavior: 'deny' });
    expect(denyAnswer(' not that file ', true)).toEqual({ behavior: 'deny', message: 'not that file', interrupt: true });
  });
});

describe('question answers', () => {
  const qs = [
    { question: 'Which database?', options: [{ label: 'Postgres' }, { label: 'SQLite' }], multiSelect: false },
    { question: 'Which features?', options: [{ label: 'Auth' }, { label: 'Billing' }, { label: 'Search' }], multiSelect: true },
  ];

  it('a label per question, labels for multiSelect, free text winning', () => {
    expect(questionAnswer(qs, [{ labels: ['SQLite'], other: '' }, { labels: ['Auth', 'Search'], other: '' }])).toEqual({
      body: { answers: { 'Which database?': 'SQLite', 'Which features?': ['Auth', 'Search'] } },
    });
    expect(questionAnswer(qs, [{ labels: ['SQLite'], other: ' DuckDB ' }, { labels: ['Auth'], other: '' }])).toEqual({
      body: { answers: { 'Which database?': 'DuckDB', 'Which features?': ['Auth'] } },
    });
  });

  it('names the questions left unanswered; unknown labels do not count', () => {
    expect(questionAnswer(qs, [{ labels: ['MySQL'], other: '' }, undefined])).toEqual({ missing: ['Which database?', 'Which features?'] });
  });
});

describe('formatting', () => {
  it('counts, dates, JSON', () => {
    expect(formatCount(1234567)).toBe('1,234,567');
    expect(formatCount(12)).toBe('12');
    expect(formatDateTime('2024-05-01T12:34:56Z')).toMatch(/^2024-05-0[12] \d\d:34:56$/);
    expect(formatDateTime('nonsense')).toBe('nonsense');
    expect(prettyJson({ a: 1 })).toBe('{\n  "a": 1\n}');
    expect(prettyJson(undefined)).toBe('undefined');
  });

  it('long texts are over 20 lines or 2,000 characters', () => {
    expect(isLong('x\n'.repeat(20).trimEnd())).toBe(false);
    expect(isLong('x\n'.repeat(21).trimEnd())).toBe(true);
    expect(isLong('x'.repeat(2000))).toBe(false);
    expect(isLong('x'.repeat(2001))).toBe(true);
    expect(collapsedSummary('a\nb')).toBe('2 lines, 3 characters');
  });

  it('truncation notes name the size and the hash prefix', () => {
    const t = { output_id: 'out_1', block_index: 0, total_chars: 1234567, shown_chars: 30000, sha256: 'abcdef0123456789'.repeat(4) };
    expect(truncationNote(t)).toBe('Full output: 1,234,567 characters, SHA-256 abcdef012345…');
    const { output_id: _, ...kept } = t;
    expect(truncationNote(kept)).toMatch(/not kept/);
    expect(truncationsOf({ truncation: t, truncations: [t, { ...t, block_index: 1, output_id: 'out_2' }] }).map((x) => x.output_id)).toEqual(['out_1', 'out_2']);
  });
});

describe('routes, shortcuts, scopes', () => {
  it('parses the hash routes', () => {
    expect(parseRoute('')).toEqual({ view: 'inbox' });
    expect(parseRoute('#/')).toEqual({ view: 'inbox' });
    expect(parseRoute('#/inbox')).toEqual({ view: 'inbox' });
    expect(parseRoute('#/sessions')).toEqual({ view: 'sessions' });
    expect(parseRoute('#/sessions/ses_AB-1')).toEqual({ view: 'session', id: 'ses_AB-1' });
    expect(parseRoute('#/sessions/../x').view).toBe('missing');
    expect(parseRoute('#/other').view).toBe('missing');
    expect(sessionHref('ses_1')).toBe('#/sessions/ses_1');
  });

  it('a and d act unless the person is typing or holds a modifier', () => {
    expect(shortcutOf({ key: 'a' }, { tagName: 'BODY' })).toBe('allow');
    expect(shortcutOf({ key: 'd' }, { tagName: 'BUTTON' })).toBe('deny');
    expect(shortcutOf({ key: 'a' }, { tagName: 'INPUT' })).toBeNull();
    expect(shortcutOf({ key: 'd' }, { tagName: 'textarea' })).toBeNull();
    expect(shortcutOf({ key: 'a' }, { tagName: 'SELECT' })).toBeNull();
    expect(shortcutOf({ key: 'a' }, { tagName: 'DIV', isContentEditable: true })).toBeNull();
    expect(shortcutOf({ key: 'a', ctrlKey: true }, null)).toBeNull();
    expect(shortcutOf({ key: 'x' }, null)).toBeNull();
  });

  it('scopes include the ones below them', () => {
    expect([canAnswer(['read']), canWrite(['read']), isAdmin(['read'])]).toEqual([false, false, false]);
    expect([canAnswer(['approve']), canWrite(['approve'])]).toEqual([true, false]);
    expect([canAnswer(['write']), canWrite(['write']), isAdmin(['write'])]).toEqual([true, true, false]);
    expect([canAnswer(['admin']), canWrite(['admin']), isAdmin(['admin'])]).toEqual([true, true, true]);
    expect(canAnswer([])).toBe(false);
  });
});

describe('problems', () => {
  it('shows the detail and the errors with their pointers', () => {
    const e = errorFromAnswer(400, 'Bad Request', 'application/problem+json', JSON.stringify({ type: 'about:blank', title: 'Bad Request', status: 400, detail: 'invalid body', errors: [{ path: '/key', message: 'must be string' }] }));
    expect(e).toBeInstanceOf(ApiError);
    expect(e.status).toBe(400);
    expect(e.message).toBe('invalid body (/key: must be string)');
  });

  it('falls back to the status for non-JSON answers', () => {
    expect(errorFromAnswer(502, 'Bad Gateway', 'text/html', '<html>').message).toBe('The server answered 502 Bad Gateway.');
    expect(errorFromAnswer(500, 'Internal Server Error', 'text/plain', 'boom').message).toBe('500 Internal Server Error: boom');
  });
});

describe('sessions list', () => {
  // The fields the list's logic reads; the rest of a session does not matter here.
  const s = (id: string, n: number, status: Session['status'] = 'active'): Session =>
    ({
    id,
    status,
    tenant: 't',
    workspace: '/w',
    permission_mode: 'default',
    tools: [],
    active_turn_id: null,
    created_at: new Date(1_700_000_000_000 + n * 1000).toISOString(),
    closed_at: null,
  }) as unknown as Session;

  it('More appends without duplicates; a refresh updates the first page and keeps older pages', () => {
    let list = appendPage({ items: [], next_cursor: null }, { items: [s('c', 3), s('b', 2)], next_cursor: 'k1' });
    list = appendPage(list, { items: [s('b', 2), s('a', 1)], next_cursor: null });
    expect(list.items.map((x) => x.id)).toEqual(['c', 'b', 'a']);
    const fresh = refreshFirstPage(list, { items: [s('d', 4), s('c', 3, 'closed')], next_cursor: 'k2' });
    expect(fresh.items.map((x) => `${x.id}:${x.status}`)).toEqual(['d:active', 'c:closed', 'b:active', 'a:active']);
    expect(fresh.next_cursor).toBeNull();
    // Only the first page loaded: the fresh page replaces it, cursor included.
    const only = refreshFirstPage({ items: [s('c', 3)], next_cursor: 'k1' }, { items: [s('d', 4), s('c', 3)], next_cursor: 'k3' });
    expect(only).toEqual({ items: [s('d', 4), s('c', 3)], next_cursor: 'k3' });
  });
});

describe('event types', () => {
  it('listens for every type of the Event schema in openapi.json', () => {
    const doc = JSON.parse(fs.readFileSync(path.join(ROOT, 'openapi/openapi.json'), 'utf8')) as {
      components: { schemas: Record<string, { oneOf?: { $ref: string }[]; properties?: { type?: { const?: string; enum?: string[] } } }> };
    };
    const types = doc.components.schemas.Event!.oneOf!.map((r) => {
      const schema = doc.components.schemas[r.$ref.split('/').pop()!]!;
      return schema.properties!.type!.const ?? schema.properties!.type!.enum![0]!;
    });
    expect([...EVENT_TYPES].sort()).toEqual([...types].sort());
    expect([...LIVE_ONLY].every((t) => types.includes(t as never))).toBe(true);
  });

  it('summarizes events in one line', () => {
    const base = { session_id: 's', seq: 1, time: '2024-01-01T00:00:00Z' };
    const e = { ...base, type: 'permission.requested', turn_id: 't', permission: { tool: 'Write', reason: 'asks\nfor edits' } } as unknown as NormaEvent;
    expect(summarize(e)).toBe('Write: asks for edits');
    const done = { ...base, type: 'tool.completed', turn_id: 't', tool_use_id: 'u', tool: 'Bash', result: { is_error: true, content: [{ type: 'text', text: 'exit 1' }] } } as unknown as NormaEvent;
    expect(summarize(done)).toBe('Bash error: exit 1');
  });
});
