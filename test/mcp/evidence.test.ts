import { describe, it, expect, vi } from 'vitest';
import { createHash } from 'node:crypto';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { EvidenceTransport, withOrigin, type McpEvidence } from '../../src/mcp/evidence.js';

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
const bytes = (m: unknown) => Buffer.byteLength(JSON.stringify(m));
const tick = () => new Promise<void>((r) => setImmediate(r));

class FakeTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  sent: JSONRPCMessage[] = [];
  started = 0;
  sessionId: string | undefined = 'sess-1';
  versions: string[] = [];
  failSends = false;
  async start(): Promise<void> {
    this.started++;
  }
  async send(message: JSONRPCMessage): Promise<void> {
    if (this.failSends) throw new Error('not connected');
    this.sent.push(message);
  }
  async close(): Promise<void> {
    this.onclose?.();
  }
  setProtocolVersion(v: string): void {
    this.versions.push(v);
  }
  /** The server answers. */
  receive(m: unknown): void {
    this.onmessage?.(m as JSONRPCMessage);
  }
}

async function setup() {
  const inner = new FakeTransport();
  const records: McpEvidence[] = [];
  let clock = 1000;
  const t = new EvidenceTransport(inner, (e) => records.push(e), () => clock);
  const received: JSONRPCMessage[] = [];
  const onclose = vi.fn();
  t.onmessage = (m) => void received.push(m);
  t.onclose = onclose;
  await t.start();
  return { inner, t, records, received, onclose, advance: (ms: number) => (clock += ms) };
}

const call = (id: number | string, name: string, args: Record<string, unknown> = {}) =>
  ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }) as JSONRPCMessage;
const result = (id: number | string, r: Record<string, unknown> = { content: [{ type: 'text', text: 'ok' }] }) => ({ jsonrpc: '2.0', id, result: r });

describe('EvidenceTransport: records', () => {
  it('starts the inner transport', async () => {
    const { inner } = await setup();
    expect(inner.started).toBe(1);
  });

  it('a tools/call request and its response give one record with sizes, digests, tool and duration', async () => {
    const { t, inner, records, received, advance } = await setup();
    const request = call(1, 'search', { q: '日本' });
    await t.send(request);
    expect(inner.sent).toEqual([request]);
    expect(records).toEqual([]);
    advance(250);
    const response = result(1, { content: [{ type: 'text', text: 'found ✓' }] });
    inner.receive(response);
    expect(received).toEqual([response]);
    expect(records).toEqual([
      {
        method: 'tools/call',
        tool: 'search',
        request_bytes: bytes(request),
        response_bytes: bytes(response),
        request_sha256: sha256(JSON.stringify(request)),
        response_sha256: sha256(JSON.stringify(response)),
        outcome: 'ok',
        duration_ms: 250,
      },
    ]);
    const r = records[0]!;
    expect(r.request_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(r.response_sha256).toMatch(/^[0-9a-f]{64}$/);
    // sizes are UTF-8 bytes, not characters
    expect(r.request_bytes).toBeGreaterThan(JSON.stringify(request).length);
    expect(r.response_bytes).toBeGreaterThan(JSON.stringify(response).length);
  });

  it('requests other than tools/call have no tool', async () => {
    const { t, inner, records } = await setup();
    await t.send({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'file:///a', name: 'looks like a tool' } } as JSONRPCMessage);
    await t.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' } as JSONRPCMessage);
    await t.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 42 } } as unknown as JSONRPCMessage);
    inner.receive(result(1, {}));
    inner.receive(result(2, { tools: [] }));
    inner.receive(result(3, {}));
    expect(records.map((r) => [r.method, r.tool])).toEqual([
      ['resources/read', undefined],
      ['tools/list', undefined],
      ['tools/call', undefined],
    ]);
    expect(records.every((r) => !('tool' in r))).toBe(true);
  });

  it('responses are matched by id, in any order, and id 0 and string ids work', async () => {
    const { t, inner, records, advance } = await setup();
    await t.send(call(0, 'a'));
    advance(10);
    await t.send(call('req-b', 'b'));
    advance(5);
    inner.receive(result('req-b'));
    advance(20);
    inner.receive(result(0));
    expect(records.map((r) => [r.tool, r.duration_ms, r.outcome])).toEqual([
      ['b', 5, 'ok'],
      ['a', 35, 'ok'],
    ]);
  });

  it('a JSON-RPC error response gives outcome "error" with code and message', async () => {
    const { t, inner, records, received } = await setup();
    await t.send(call(4, 'broken'));
    const err = { jsonrpc: '2.0', id: 4, error: { code: -32602, message: 'Invalid params' } };
    inner.receive(err);
    expect(received).toEqual([err]);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ method: 'tools/call', tool: 'broken', outcome: 'error', error: '-32602 Invalid params', response_bytes: bytes(err), response_sha256: sha256(JSON.stringify(err)) });
  });

  it('a tool result with isError is still a protocol-level "ok"', async () => {
    const { t, inner, records } = await setup();
    await t.send(call(1, 'x'));
    inner.receive(result(1, { content: [], isError: true }));
    expect(records[0]!.outcome).toBe('ok');
    expect(records[0]).not.toHaveProperty('error');
  });

  it('one record per request: a second response with the same id, or an unknown id, adds nothing but is passed on', async () => {
    const { t, inner, records, received } = await setup();
    await t.send(call(1, 'x'));
    inner.receive(result(1));
    inner.receive(result(1));
    inner.receive(result(99));
    expect(records).toHaveLength(1);
    expect(received).toHaveLength(3);
  });

  it('a negative clock step does not give a negative duration', async () => {
    const { t, inner, records, advance } = await setup();
    await t.send(call(1, 'x'));
    advance(-50);
    inner.receive(result(1));
    expect(records[0]!.duration_ms).toBe(0);
  });
});

describe('EvidenceTransport: notifications and server requests', () => {
  it('notifications we send leave no record and are passed on', async () => {
    const { t, inner, records } = await setup();
    const n = { jsonrpc: '2.0', method: 'notifications/initialized' } as JSONRPCMessage;
    await t.send(n);
    await t.send({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' } as JSONRPCMessage);
    expect(inner.sent).toHaveLength(2);
    await t.close();
    expect(records).toEqual([]);
  });

  it('notifications and requests from the server leave no record and are passed on', async () => {
    const { inner, records, received } = await setup();
    inner.receive({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    inner.receive({ jsonrpc: '2.0', id: 1, method: 'roots/list' });
    expect(received).toHaveLength(2);
    expect(records).toEqual([]);
  });

  it('a server request with the same id as our open request does not close our record', async () => {
    const { t, inner, records } = await setup();
    await t.send(call(1, 'x'));
    inner.receive({ jsonrpc: '2.0', id: 1, method: 'sampling/createMessage', params: {} });
    expect(records).toEqual([]);
    inner.receive(result(1));
    expect(records).toHaveLength(1);
    expect(records[0]!.outcome).toBe('ok');
  });

  it('responses we send (to server requests) leave no record', async () => {
    const { t, records } = await setup();
    await t.send({ jsonrpc: '2.0', id: 1, result: { roots: [] } } as JSONRPCMessage);
    expect(records).toEqual([]);
  });
});

describe('EvidenceTransport: origin', () => {
  it('withOrigin attributes the request to the call, across awaits, even when the answer comes outside it', async () => {
    const { t, inner, records } = await setup();
    await withOrigin({ turnId: 'turn-1', toolUseId: 'toolu-1' }, async () => {
      await tick();
      await new Promise((r) => setTimeout(r, 5));
      await Promise.resolve().then(() => t.send(call(1, 'search')));
    });
    inner.receive(result(1));
    expect(records[0]).toMatchObject({ turn_id: 'turn-1', tool_use_id: 'toolu-1', tool: 'search' });
  });

  it('concurrent calls are each attributed to their own origin', async () => {
    const { t, inner, records } = await setup();
    const a = withOrigin({ turnId: 't', toolUseId: 'A' }, async () => {
      await new Promise((r) => setTimeout(r, 10));
      await t.send(call(1, 'a'));
    });
    const b = withOrigin({ turnId: 't', toolUseId: 'B' }, async () => {
      await tick();
      await t.send(call(2, 'b'));
    });
    await Promise.all([a, b]);
    inner.receive(result(1));
    inner.receive(result(2));
    expect(records.map((r) => [r.tool, r.tool_use_id])).toEqual([
      ['a', 'A'],
      ['b', 'B'],
    ]);
  });

  it('a request outside any origin, or with an undefined origin, has no turn_id or tool_use_id', async () => {
    const { t, inner, records } = await setup();
    await t.send(call(1, 'x'));
    await withOrigin(undefined, () => t.send(call(2, 'y')));
    inner.receive(result(1));
    inner.receive(result(2));
    expect(records).toHaveLength(2);
    for (const r of records) {
      expect(r).not.toHaveProperty('turn_id');
      expect(r).not.toHaveProperty('tool_use_id');
    }
  });

  it('withOrigin returns the function result', async () => {
    await expect(withOrigin({ turnId: 't', toolUseId: 'u' }, async () => 42)).resolves.toBe(42);
    await expect(withOrigin(undefined, async () => 'plain')).resolves.toBe('plain');
  });
});

describe('EvidenceTransport: abandoned requests', () => {
  it('notifications/cancelled closes the record as no_response with its reason; a late answer adds nothing', async () => {
    const { t, inner, records, received, advance } = await setup();
    await withOrigin({ turnId: 't1', toolUseId: 'u1' }, () => t.send(call(5, 'slow')));
    advance(3000);
    const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5, reason: 'timeout' } } as JSONRPCMessage;
    await t.send(cancel);
    expect(inner.sent.at(-1)).toEqual(cancel);
    expect(records).toEqual([
      {
        turn_id: 't1',
        tool_use_id: 'u1',
        method: 'tools/call',
        tool: 'slow',
        request_bytes: bytes(call(5, 'slow')),
        response_bytes: 0,
        request_sha256: sha256(JSON.stringify(call(5, 'slow'))),
        response_sha256: null,
        outcome: 'no_response',
        error: 'cancelled: timeout',
        duration_ms: 3000,
      },
    ]);
    inner.receive(result(5));
    expect(records).toHaveLength(1);
    expect(received).toHaveLength(1);
  });

  it('a cancellation without a reason, and one for an unknown request', async () => {
    const { t, records } = await setup();
    await t.send(call(1, 'x'));
    await t.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2 } } as JSONRPCMessage);
    expect(records).toEqual([]);
    await t.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } } as JSONRPCMessage);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ outcome: 'no_response', error: 'cancelled: no reason given' });
  });

  it('close marks every open request no_response, once, and fires onclose', async () => {
    const { t, inner, records, onclose, advance } = await setup();
    await t.send(call(1, 'a'));
    await t.send(call(2, 'b'));
    await t.send(call(3, 'c'));
    inner.receive(result(2));
    advance(100);
    await t.close();
    expect(onclose).toHaveBeenCalledTimes(1);
    expect(records.map((r) => [r.tool, r.outcome])).toEqual([
      ['b', 'ok'],
      ['a', 'no_response'],
      ['c', 'no_response'],
    ]);
    for (const r of records.slice(1)) {
      expect(r).toMatchObject({ response_bytes: 0, response_sha256: null, error: 'the connection closed before an answer came', duration_ms: 100 });
    }
    inner.onclose?.();
    expect(records).toHaveLength(3);
  });

  it('the inner transport closing by itself (the server went away) closes the records too', async () => {
    const { t, inner, records, onclose } = await setup();
    await t.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} } as JSONRPCMessage);
    inner.onclose?.();
    expect(onclose).toHaveBeenCalledTimes(1);
    expect(records).toMatchObject([{ method: 'initialize', outcome: 'no_response' }]);
  });
});

describe('EvidenceTransport: pass-through', () => {
  it('errors, sessionId and the protocol version reach the right side', async () => {
    const { t, inner } = await setup();
    const onerror = vi.fn();
    t.onerror = onerror;
    const e = new Error('boom');
    inner.onerror?.(e);
    expect(onerror).toHaveBeenCalledWith(e);
    expect(t.sessionId).toBe('sess-1');
    inner.sessionId = 'sess-2';
    expect(t.sessionId).toBe('sess-2');
    t.setProtocolVersion('2025-06-18');
    expect(t.protocolVersion).toBe('2025-06-18');
    expect(inner.versions).toEqual(['2025-06-18']);
  });

  it('a send the inner transport refuses rejects', async () => {
    const { t, inner } = await setup();
    inner.failSends = true;
    await expect(t.send(call(1, 'x'))).rejects.toThrow('not connected');
  });
});

describe('EvidenceTransport: a request that could not be sent', () => {
  it('is recorded at once as never answered, saying why, and the error reaches the caller', async () => {
    const { inner, t, records } = await setup();
    inner.failSends = true;
    await expect(t.send(call(9, 'echo') as JSONRPCMessage)).rejects.toThrow('not connected');
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ method: 'tools/call', tool: 'echo', outcome: 'no_response', response_sha256: null, error: 'it could not be sent: not connected' });
    // Closing later adds nothing for it.
    await t.close();
    expect(records).toHaveLength(1);
  });
});
