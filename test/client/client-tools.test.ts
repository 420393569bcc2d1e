// The typed client's helper for client tools against a running server: it reads the session's
// events, runs the named handler for each client_tool.requested and posts what it returns; a
// handler that throws (or none at all) answers with an error result; a request no longer pending
// when it is read (a stream replayed from its start) is left alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerOf, createNormaClient, type ClientToolHandler, type NormaClient, type Turn } from '../../clients/typescript/src/index.js';
import { startServer, type TestServer } from '../helpers/server.js';

const TOKEN = 'client-tools-test-token-0123456789';
const schema = { type: 'object', properties: { id: { type: 'string' } } };
const tool = (name: string) => ({ name, description: `The client's ${name}.`, input_schema: schema });

describe('answerClientTools (typed client)', () => {
  let t: TestServer;
  let norma: NormaClient;
  beforeAll(async () => {
    t = await startServer({ NORMA_SANDBOX: 'off', NORMA_TOKEN: TOKEN });
    norma = createNormaClient({ baseUrl: t.url, token: TOKEN });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers each request with its handler\'s result, an error result for a throw or a missing handler, and ends with the session', async () => {
    const created = await norma.POST('/v1/sessions', { body: { tools: ['Read'], client_tools: [tool('lookup_order'), tool('charge_card'), tool('not_here')] } });
    const sid = created.data!.id;
    const seen: string[] = [];
    const inputs: unknown[] = [];
    const handlers: Record<string, ClientToolHandler> = {
      lookup_order: async (input: { id: string }, request) => {
        inputs.push(input);
        expect(request.name).toBe('lookup_order');
        return `order ${input.id}: shipped`;
      },
      charge_card: () => {
        throw new Error('the card was declined');
      },
    };
    const answering = norma.answerClientTools(norma.events(sid), handlers, { onEvent: (e) => seen.push(e.type) });

    const posted = await norma.POST('/v1/sessions/{session_id}/turns', {
      params: { path: { session_id: sid } },
      body: {
        tool_uses: [
          { id: 'toolu_1', name: 'lookup_order', input: { id: 'A-1' } },
          { id: 'toolu_2', name: 'charge_card', input: { id: 'A-1' } },
          { id: 'toolu_3', name: 'not_here', input: {} },
        ],
      },
    });
    let turn: Turn = posted.data!;
    while (turn.status !== 'completed') {
      turn = (await norma.GET('/v1/sessions/{session_id}/turns/{turn_id}', { params: { path: { session_id: sid, turn_id: turn.id }, query: { wait: 5 } } })).data!;
    }
    expect(inputs).toEqual([{ id: 'A-1' }]);
    expect(turn.results.map((r) => [r.is_error, r.content[0]!.type === 'text' ? r.content[0]!.text : ''])).toEqual([
      [false, 'order A-1: shipped'],
      [true, 'the card was declined'],
      [true, 'This client has no handler for the tool not_here.'],
    ]);
    await norma.DELETE('/v1/sessions/{session_id}', { params: { path: { session_id: sid } } });
    await answering;
    expect(seen.filter((type) => type === 'client_tool.requested')).toHaveLength(3);
    expect(seen.at(-1)).toBe('session.closed');

    // Read again from the start: every request is resolved, so no handler runs again.
    let again = 0;
    await norma.answerClientTools(norma.events(sid, { lastEventId: 0 }), { lookup_order: () => String(++again), charge_card: () => String(++again) });
    expect(again).toBe(0);
  });

  it('a handler may return text, blocks, or a whole answer', () => {
    expect(answerOf('x')).toEqual({ content: 'x' });
    expect(answerOf([{ type: 'text', text: 'y' }])).toEqual({ content: [{ type: 'text', text: 'y' }] });
    expect(answerOf({ content: 'z', is_error: true })).toEqual({ content: 'z', is_error: true });
  });
});
