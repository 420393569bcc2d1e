// The MCP stdio transport, over a process the session's sandbox started (SPEC §9.6). The SDK's
// StdioClientTransport spawns outside any sandbox with its own environment rules, so it is not
// used: this one reads newline-delimited JSON-RPC from a sandboxed process's stdout, with a size
// limit per message, and treats anything on stdout that is not JSON-RPC as a protocol error that
// ends the connection (the MCP spec forbids a server to write anything else there).
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { loadMcpSdk, mcpSdk } from './sdk.js';
import type { ProcessExit, SandboxedProcess } from '../sandbox/session-sandbox.js';

/** The largest message a server may send (a line of stdout). */
export const MAX_MESSAGE_BYTES = 8 * 1024 * 1024;
/** How much of a server's stderr is kept (the tail) for diagnostics. */
export const STDERR_TAIL_BYTES = 8 * 1024;

export interface StdioTransportOptions {
  /** Starts the server's process (in the session's sandbox). */
  spawn(): Promise<SandboxedProcess>;
  maxMessageBytes?: number;
}

export class SandboxStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;

  private proc: SandboxedProcess | undefined;
  private parts: Buffer[] = [];
  private pending = 0;
  private closed = false;
  private stderr = Buffer.alloc(0);
  /** Why the connection ended from our side (a protocol error), if it did. */
  protocolError: string | undefined;
  /** How the process ended, once it has. */
  exit: ProcessExit | undefined;
  readonly exited: Promise<ProcessExit | undefined>;
  private settleExited!: (e: ProcessExit | undefined) => void;

  constructor(private readonly o: StdioTransportOptions) {
    this.exited = new Promise((resolve) => (this.settleExited = resolve));
  }

  /** The last bytes the server wrote to stderr. */
  stderrTail(): string {
    // The cut may fall inside a character: its continuation bytes are left out.
    let start = 0;
    while (start < this.stderr.length && start < 3 && (this.stderr[start]! & 0xc0) === 0x80) start++;
    return this.stderr.subarray(start).toString('utf8');
  }

  async start(): Promise<void> {
    // Messages are checked with the SDK's schema: have it before the first one arrives.
    await loadMcpSdk();
    let proc: SandboxedProcess;
    try {
      proc = await this.o.spawn();
    } catch (err) {
      this.settleExited(undefined);
      throw err;
    }
    this.proc = proc;
    proc.stdout.on('data', (chunk: Buffer) => {
      // Whatever goes wrong with what the server wrote ends this connection, never the process.
      try {
        this.read(chunk);
      } catch (err) {
        this.fail(`reading what the server wrote failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    });
    proc.stdout.on('error', () => undefined);
    proc.stderr.on('data', (chunk: Buffer) => {
      const joined = Buffer.concat([this.stderr, chunk]);
      this.stderr = joined.length > STDERR_TAIL_BYTES ? joined.subarray(joined.length - STDERR_TAIL_BYTES) : joined;
    });
    proc.stderr.on('error', () => undefined);
    proc.stdin?.on('error', () => undefined); // the process went away: its exit says why
    void proc.exited.then((exit) => {
      this.exit = exit;
      this.settleExited(exit);
      this.finish();
    });
  }

  private read(chunk: Buffer): void {
    if (this.closed) return;
    const max = this.o.maxMessageBytes ?? MAX_MESSAGE_BYTES;
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      if (nl === -1) break;
      const piece = chunk.subarray(start, nl);
      const line = this.parts.length > 0 ? Buffer.concat([...this.parts, piece]) : piece;
      this.parts = [];
      this.pending = 0;
      start = nl + 1;
      if (line.length > max) return this.fail(`the server sent a message of ${line.length} bytes; at most ${max} are accepted`);
      if (!this.deliver(line)) return;
    }
    const rest = chunk.subarray(start);
    if (rest.length === 0) return;
    this.pending += rest.length;
    if (this.pending > max) return this.fail(`the server sent a message of more than ${max} bytes; at most ${max} are accepted`);
    this.parts.push(rest);
  }

  private deliver(raw: Buffer): boolean {
    const text = raw.toString('utf8').replace(/\r$/, '');
    if (text.trim() === '') return true;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      this.fail(`the server wrote something that is not JSON-RPC on stdout: ${JSON.stringify(text.slice(0, 200))}`);
      return false;
    }
    const message = mcpSdk().types.JSONRPCMessageSchema.safeParse(parsed);
    if (!message.success) {
      this.fail(`the server wrote a JSON value that is not a JSON-RPC message on stdout: ${JSON.stringify(text.slice(0, 200))}`);
      return false;
    }
    this.onmessage?.(message.data);
    return true;
  }

  /** A protocol error: the connection ends and the process is stopped. */
  private fail(why: string): void {
    if (this.protocolError === undefined) this.protocolError = why;
    this.onerror?.(new Error(why));
    this.proc?.kill();
    this.finish();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.parts = [];
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.proc?.stdin;
    if (this.closed || !stdin || stdin.destroyed) return Promise.reject(new Error('the MCP server is not running'));
    return new Promise((resolve, reject) => {
      stdin.write(JSON.stringify(message) + '\n', (err) => (err ? reject(err) : resolve()));
    });
  }

  async close(): Promise<void> {
    const proc = this.proc;
    if (proc) {
      proc.stdin?.end();
      proc.kill();
      await proc.exited.catch(() => undefined);
    } else this.settleExited(undefined);
    this.finish();
  }
}
