// Every operation of the OpenAPI document, called with parameters and bodies drawn from its own
// schemas — mostly valid, often not (wrong types, missing or unknown properties, values out of
// range, hostile strings, garbage JSON) — against a real server, the way schemathesis drives an
// API from its document. Bounded (CASES per operation) and seeded (FUZZ_SEED, default below):
// the same seed sends the same requests. Nothing may answer 5xx, and every answer must be one
// the document allows (the test server checks each response; see test/helpers/server.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDoc } from '../helpers/contract.js';
import { SchemaFuzzer, seededRandom } from '../helpers/schema-fuzz.js';
import { startServer, type TestServer } from '../helpers/server.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20261204);
export const CASES = 100;

type Json = Record<string, unknown>;
interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: Json;
}
interface Operation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Json }> };
}

const operations: { method: string; template: string; op: Operation }[] = [];
for (const [template, ops] of Object.entries(openApiDoc.paths as unknown as Record<string, Record<string, Operation>>)) {
  for (const [method, op] of Object.entries(ops)) operations.push({ method: method.toUpperCase(), template, op });
}

describe(`contract fuzz: ${CASES} generated requests per operation (seed ${SEED})`, () => {
  let t: TestServer;
  const fixtures: Record<string, string[]> = { session_id: [], turn_id: [], permission_id: [], question_id: [], output_id: [] };
  const summary: Record<string, Record<number, number>> = {};

  async function liveSession(): Promise<string> {
    const s = (await t.api.post('/v1/sessions', { permission_mode: 'acceptEdits', output_cap_chars: 200, tools: ['Read', 'Write', 'LS', 'AskUser', 'TodoWrite'] })).body;
    fixtures.session_id!.unshift(s.id);
    return s.id;
  }

  beforeAll(async () => {
    // No name resolves: an outbound request a generated body asks for fails at once.
    t = await startServer({}, { resolve: async () => Promise.reject(new Error('no name resolution in this test')) });
    const sid = await liveSession();
    // A turn with a spill file, a pending permission request and a pending question to aim ids at.
    const big = 'x'.repeat(2000);
    const done = (await t.api.post(`/v1/sessions/${sid}/turns?wait=10`, {
      tool_uses: [
        { name: 'Write', input: { file_path: 'big.txt', content: big } },
        { name: 'Read', input: { file_path: 'big.txt' } },
      ],
    })).body;
    fixtures.turn_id!.push(done.id);
    const out = done.results[1].truncation?.output_id;
    expect(out, 'a capped Read leaves a spill file').toBeTruthy();
    fixtures.output_id!.push(out);
    const asking = await liveSession();
    await t.api.patch(`/v1/sessions/${asking}`, { permission_mode: 'default' });
    const paused = (await t.api.post(`/v1/sessions/${asking}/turns?wait=10`, { tool_uses: [{ name: 'Write', input: { file_path: 'a.txt', content: 'a' } }] })).body;
    fixtures.turn_id!.push(paused.id);
    fixtures.permission_id!.push(paused.pending[0]);
    const questioning = await liveSession();
    const q = (await t.api.post(`/v1/sessions/${questioning}/turns?wait=10`, {
      tool_uses: [{ name: 'AskUser', input: { questions: [{ question: 'Go?', options: [{ label: 'yes' }, { label: 'no' }] }] } }],
    })).body;
    fixtures.question_id!.push(q.pending[0]);
    fixtures.turn_id!.push(q.id);
  });

  afterAll(async () => {
    await t?.close();
  });

  it.each(operations.map((o) => [`${o.method} ${o.template} (${o.op.operationId})`, o] as const))('%s', async (_name, { method, template, op }) => {
    const fuzz = new SchemaFuzzer(openApiDoc.components.schemas as Record<string, Json>, seededRandom(SEED ^ hash(op.operationId)));
    const counts: Record<number, number> = (summary[op.operationId] = {});
    for (let i = 0; i < CASES; i++) {
      let path = template;
      const query = new URLSearchParams();
      const headers: Record<string, string> = {};
      for (const p of op.parameters ?? []) {
        if (p.in === 'path') {
          const known = fixtures[p.name] ?? [];
          const v = known.length > 0 && fuzz.chance(0.75) ? fuzz.pick(known) : String(fuzz.value(p.schema, 0.3));
          path = path.replace(`{${p.name}}`, encodeURIComponent(v));
          continue;
        }
        if (!p.required && fuzz.chance(0.5)) continue;
        let v = fuzz.value(p.schema, 0.2);
        // Bounded: a generated wait never holds a request for more than a second.
        if (p.name === 'wait' && typeof v === 'number') v = Math.min(Math.max(v, 0), 1);
        const text = typeof v === 'string' ? v : JSON.stringify(v);
        if (p.in === 'query') query.set(p.name, text);
        // A header carries bytes: what fetch cannot send as one is left out of it.
        else if (p.in === 'header') headers[p.name] = text.replace(/[^\x20-\x7e\x80-\xff]/g, '');
      }
      let body: string | undefined;
      const media = op.requestBody?.content['application/json'];
      if (media) {
        const r = fuzz.int(0, 19);
        if (r === 0) body = '{"unterminated": [';
        else if (r === 1 && op.requestBody?.required !== false) body = undefined;
        else body = JSON.stringify(fuzz.value(media.schema, 0.2));
        if (body !== undefined) headers['content-type'] = 'application/json';
      }
      const url = `${t.url}${path}${query.size > 0 ? `?${query}` : ''}`;
      const before = t.violations.length;
      const abort = new AbortController();
      const timer = setTimeout(() => abort.abort(), 15_000);
      let status: number;
      try {
        const res = await fetch(url, { method, headers, signal: abort.signal, ...(body !== undefined ? { body } : {}) });
        status = res.status;
        // The event stream never ends by itself: its head is enough.
        if (res.headers.get('content-type')?.startsWith('text/event-stream')) await res.body?.cancel();
        else await res.text();
      } finally {
        clearTimeout(timer);
      }
      counts[status] = (counts[status] ?? 0) + 1;
      const request = `${method} ${path}${query.size > 0 ? `?${query}` : ''} ${body ?? ''}`.slice(0, 600);
      expect(status, `5xx for ${request} (seed ${SEED}, case ${i})`).toBeLessThan(500);
      expect(t.violations.slice(before), `off-contract answer to ${request} (seed ${SEED}, case ${i})`).toEqual([]);
      // A closed session is replaced, so later cases still reach live ones.
      if (method === 'DELETE' && status === 204) {
        const closed = path.split('/')[3];
        fixtures.session_id = fixtures.session_id!.filter((s) => s !== closed);
        if (fixtures.session_id.length === 0) await liveSession();
      }
      if (method === 'POST' && template === '/v1/sessions' && status === 201 && fixtures.session_id!.length > 8) fixtures.session_id!.pop();
    }
    // Some generated requests are accepted and some refused: the generator reaches past validation.
    const statuses = Object.keys(counts).map(Number);
    expect(statuses.length, `${op.operationId} answered only ${JSON.stringify(counts)}`).toBeGreaterThan(0);
  }, 120_000);

  it('reached every operation with accepted and refused requests', () => {
    expect(Object.keys(summary)).toHaveLength(operations.length);
    const withInput = operations.filter((o) => (o.op.parameters ?? []).length > 0 || o.op.requestBody).map((o) => o.op.operationId);
    const accepted = Object.values(summary).filter((c) => Object.keys(c).some((s) => Number(s) < 300)).length;
    const refused = withInput.filter((id) => Object.keys(summary[id]!).some((s) => Number(s) >= 400));
    // Every operation that takes input refused some generated input, and most accepted some (a
    // few need state a random draw rarely meets, such as a request still pending).
    expect(refused).toEqual(withInput);
    expect(accepted).toBeGreaterThanOrEqual(Math.floor(operations.length * 0.7));
    console.log(`contract fuzz, seed ${SEED}: ${CASES} requests × ${operations.length} operations; statuses ${JSON.stringify(totals(summary))}`);
  });
});

function totals(summary: Record<string, Record<number, number>>): Record<number, number> {
  const out: Record<number, number> = {};
  for (const c of Object.values(summary)) for (const [s, n] of Object.entries(c)) out[Number(s)] = (out[Number(s)] ?? 0) + n;
  return out;
}

function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}
