// Every request to an MCP server and its answer leave an evidence record (like egress.request):
// method, sizes, digests, outcome and time. A transport wrapper sees each message as it is sent
// and received; the call that caused a request (turn, tool_use) travels in async context, so a
// request made deep inside the SDK is still attributed to its call.
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { boundMessage } from './bounds.js';

export interface McpOrigin {
  turnId: string;
  toolUseId: string;
}

export interface McpEvidence {
  turn_id?: string;
  tool_use_id?: string;
  method: string;
  tool?: string;
  request_bytes: number;
  response_bytes: number;
  request_sha256: string;
  response_sha256: string | null;
  outcome: 'ok' | 'error' | 'no_response';
  error?: string;
  duration_ms: number;
}

const origins = new AsyncLocalStorage<McpOrigin>();

/** Runs `fn` with requests it makes attributed to this call. */
export function withOrigin<T>(origin: McpOrigin | undefined, fn: () => Promise<T>): Promise<T> {
  return origin ? origins.run(origin, fn) : fn();
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

interface Open {
  method: string;
  tool?: string;
  origin: McpOrigin | undefined;
  bytes: number;
  sha: string;
  started: number;
}

/** Wraps a transport; `record` gets one evidence record per request once it is answered or abandoned. */
export class EvidenceTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  private readonly open = new Map<string | number, Open>();

  constructor(
    readonly inner: Transport,
    private readonly record: (e: McpEvidence) => void,
    private readonly now: () => number = Date.now,
  ) {}

  start(): Promise<void> {
    this.inner.onmessage = (m) => {
      // Nothing a server sends reaches the process: a message is measured before it is digested
      // or parsed further, and a failure in handling one ends this connection, not the server.
      try {
        const bounded = boundMessage(m);
        if (!bounded.ok) {
          const id = bounded.reply && 'id' in bounded.reply ? bounded.reply.id : undefined;
          const o = id !== undefined ? this.open.get(id) : undefined;
          if (o && id !== undefined) this.emit(id, o, 'error', 0, null, bounded.problem);
          if (bounded.reply) this.onmessage?.(bounded.reply);
          else this.onerror?.(new Error(bounded.problem));
          return;
        }
        this.received(bounded.message);
        this.onmessage?.(bounded.message);
      } catch (err) {
        const why = `handling a message of the server failed: ${err instanceof Error ? err.message : String(err)}`;
        this.onerror?.(new Error(why));
        void this.inner.close().catch(() => undefined);
      }
    };
    this.inner.onerror = (e) => this.onerror?.(e);
    this.inner.onclose = () => {
      for (const [id, o] of this.open) this.emit(id, o, 'no_response', 0, null, 'the connection closed before an answer came');
      this.onclose?.();
    };
    return this.inner.start();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if ('method' in message && 'id' in message) {
      const text = JSON.stringify(message);
      const params = (message as { params?: { name?: unknown } }).params;
      this.open.set(message.id, {
        method: message.method,
        ...(message.method === 'tools/call' && typeof params?.name === 'string' ? { tool: params.name } : {}),
        origin: origins.getStore(),
        bytes: Buffer.byteLength(text),
        sha: sha256(text),
        started: this.now(),
      });
    } else if ('method' in message && message.method === 'notifications/cancelled') {
      // A request we gave up on (timeout, cancelled turn): its record says so now.
      const id = (message as { params?: { requestId?: string | number; reason?: string } }).params;
      const o = id?.requestId !== undefined ? this.open.get(id.requestId) : undefined;
      if (o && id?.requestId !== undefined) this.emit(id.requestId, o, 'no_response', 0, null, `cancelled: ${id.reason ?? 'no reason given'}`);
    }
    try {
      await this.inner.send(message);
    } catch (err) {
      // Never sent: its record says so now, not when the connection closes later.
      const id = 'id' in message && 'method' in message ? message.id : undefined;
      const o = id !== undefined ? this.open.get(id) : undefined;
      if (o && id !== undefined) this.emit(id, o, 'no_response', 0, null, `it could not be sent: ${err instanceof Error ? err.message : String(err)}`);
      throw err;
    }
  }

  private received(m: JSONRPCMessage): void {
    if (!('id' in m) || 'method' in m || m.id === undefined) return;
    const o = this.open.get(m.id);
    if (!o) return;
    const text = JSON.stringify(m);
    const error = 'error' in m ? (m as { error: { message?: string; code?: number } }).error : undefined;
    this.emit(m.id, o, error ? 'error' : 'ok', Buffer.byteLength(text), sha256(text), error ? `${error.code ?? ''} ${error.message ?? ''}`.trim() : undefined);
  }

  private emit(id: string | number, o: Open, outcome: McpEvidence['outcome'], bytes: number, sha: string | null, error?: string): void {
    this.open.delete(id);
    this.record({
      ...(o.origin ? { turn_id: o.origin.turnId, tool_use_id: o.origin.toolUseId } : {}),
      method: o.method,
      ...(o.tool !== undefined ? { tool: o.tool } : {}),
      request_bytes: o.bytes,
      response_bytes: bytes,
      request_sha256: o.sha,
      response_sha256: sha,
      outcome,
      ...(error !== undefined ? { error } : {}),
      duration_ms: Math.max(0, Math.round(this.now() - o.started)),
    });
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  /** The protocol version agreed at initialize. */
  protocolVersion: string | undefined;

  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
    this.inner.setProtocolVersion?.(version);
  }
}
