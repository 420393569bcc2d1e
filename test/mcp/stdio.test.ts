import { describe, it, expect, vi } from 'vitest';
import { PassThrough, Writable } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { SandboxStdioTransport, MAX_MESSAGE_BYTES, STDERR_TAIL_BYTES } from '../../src/mcp/stdio.js';
import type { ProcessExit, SandboxedProcess } from '../../src/sandbox/session-sandbox.js';

interface FakeProcess extends SandboxedProcess {
  readonly stdout: PassThrough;
  readonly stderr: PassThrough;
  readonly stdin: Writable;
  written: string[];
  stdinEnded: boolean;
  kills: number;
  exit(e: ProcessExit): void;
}

/** A process shaped like SandboxedProcess; kill() makes it exit with SIGKILL unless told otherwise. */
function fakeProcess(opts: { exitOnKill?: boolean } = {}): FakeProcess {
  let settle!: (e: ProcessExit) => void;
  const exited = new Promise<ProcessExit>((r) => (settle = r));
  const p = {
    stdout: new PassThrough(),
    stderr: new PassThrough(),
    written: [] as string[],
    stdinEnded: false,
    kills: 0,
    exited,
    exit: (e: ProcessExit) => settle(e),
    kill() {
      p.kills++;
      if (opts.exitOnKill !== false) settle({ code: null, signal: 'SIGKILL' });
    },
  } as unknown as FakeProcess;
  const stdin = new Writable({
    write(chunk: Buffer, _enc, cb) {
      p.written.push(chunk.toString('utf8'));
      cb();
    },
    final(cb) {
      p.stdinEnded = true;
      cb();
    },
  });
  (p as { stdin: Writable }).stdin = stdin;
  return p;
}

const tick = () => new Promise<void>((r) => setImmediate(r));

async function started(opts: { maxMessageBytes?: number; exitOnKill?: boolean } = {}) {
  const proc = fakeProcess(opts);
  const spawn = vi.fn(async () => proc);
  const t = new SandboxStdioTransport({ spawn, ...(opts.maxMessageBytes !== undefined ? { maxMessageBytes: opts.maxMessageBytes } : {}) });
  const messages: JSONRPCMessage[] = [];
  const errors: Error[] = [];
  const onclose = vi.fn();
  t.onmessage = (m) => void messages.push(m);
  t.onerror = (e) => void errors.push(e);
  t.onclose = onclose;
  await t.start();
  const feed = async (...chunks: (string | Buffer)[]) => {
    for (const c of chunks) {
      proc.stdout.write(typeof c === 'string' ? Buffer.from(c, 'utf8') : c);
      await tick();
    }
  };
  return { t, proc, spawn, messages, errors, onclose, feed };
}

const req = (id: number, extra: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id, method: 'tools/list', ...extra });
const line = (m: unknown) => JSON.stringify(m) + '\n';

/** A valid JSON-RPC notification whose JSON text is exactly `n` bytes. */
function notificationOfBytes(n: number): string {
  const empty = JSON.stringify({ jsonrpc: '2.0', method: 'x', params: { p: '' } });
  const text = JSON.stringify({ jsonrpc: '2.0', method: 'x', params: { p: 'a'.repeat(n - empty.length) } });
  expect(Buffer.byteLength(text)).toBe(n);
  return text;
}

describe('SandboxStdioTransport: reading messages', () => {
  it('spawns once on start and delivers a message', async () => {
    const { spawn, messages, feed } = await started();
    expect(spawn).toHaveBeenCalledTimes(1);
    await feed(line(req(1)));
    expect(messages).toEqual([req(1)]);
  });

  it('a message split across chunks (even inside a multi-byte character) is delivered whole', async () => {
    const { messages, feed, onclose } = await started();
    const bytes = Buffer.from(line({ jsonrpc: '2.0', id: 7, result: { text: '日本語 ok' } }), 'utf8');
    const cut = bytes.indexOf(Buffer.from('本', 'utf8')) + 1; // inside the 3-byte character
    await feed(bytes.subarray(0, 5), bytes.subarray(5, cut));
    expect(messages).toEqual([]);
    await feed(bytes.subarray(cut, bytes.length - 1));
    expect(messages).toEqual([]);
    await feed(bytes.subarray(bytes.length - 1));
    expect(messages).toEqual([{ jsonrpc: '2.0', id: 7, result: { text: '日本語 ok' } }]);
    expect(onclose).not.toHaveBeenCalled();
  });

  it('several messages in one chunk are delivered in order, and a trailing partial waits for its newline', async () => {
    const { messages, feed } = await started();
    const third = line(req(3));
    await feed(line(req(1)) + line({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } }) + third.slice(0, 10));
    expect(messages).toEqual([req(1), { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } }]);
    await feed(third.slice(10) + line(req(4)));
    expect(messages.map((m) => ('id' in m ? m.id : 'note'))).toEqual([1, 'note', 3, 4]);
  });

  it('CRLF line endings are accepted', async () => {
    const { messages, feed, t } = await started();
    await feed(JSON.stringify(req(1)) + '\r\n' + JSON.stringify(req(2)) + '\r', '\n');
    expect(messages).toEqual([req(1), req(2)]);
    expect(t.protocolError).toBeUndefined();
  });

  it('blank and whitespace-only lines are ignored', async () => {
    const { messages, feed, t, onclose } = await started();
    await feed('\n\n   \n\r\n\t\n' + line(req(1)) + '\n');
    expect(messages).toEqual([req(1)]);
    expect(t.protocolError).toBeUndefined();
    expect(onclose).not.toHaveBeenCalled();
  });

  it('responses and error responses are JSON-RPC too', async () => {
    const { messages, feed } = await started();
    const err = { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'Method not found' } };
    await feed(line({ jsonrpc: '2.0', id: 1, result: {} }) + line(err));
    expect(messages).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }, err]);
  });
});

describe('SandboxStdioTransport: message size', () => {
  it('the default limit is 8 MiB', () => {
    expect(MAX_MESSAGE_BYTES).toBe(8 * 1024 * 1024);
  });

  it('a message of exactly maxMessageBytes is accepted, with or without being split', async () => {
    const { messages, feed, t } = await started({ maxMessageBytes: 100 });
    const exact = notificationOfBytes(100);
    await feed(exact + '\n');
    await feed(exact.slice(0, 60), exact.slice(60), '\n');
    expect(messages).toHaveLength(2);
    expect(t.protocolError).toBeUndefined();
  });

  it('a complete line over the limit is a protocol error: killed, closed once, nothing after it delivered', async () => {
    const { t, proc, messages, errors, onclose, feed } = await started({ maxMessageBytes: 100 });
    await feed(notificationOfBytes(101) + '\n' + line(req(9)));
    expect(t.protocolError).toBe('the server sent a message of 101 bytes; at most 100 are accepted');
    expect(errors.map((e) => e.message)).toEqual([t.protocolError]);
    expect(proc.kills).toBe(1);
    expect(onclose).toHaveBeenCalledTimes(1);
    expect(messages).toEqual([]);
    await feed(line(req(10)));
    await tick();
    expect(messages).toEqual([]);
    expect(onclose).toHaveBeenCalledTimes(1); // the exit that follows the kill does not close again
    expect(t.exit).toEqual({ code: null, signal: 'SIGKILL' });
  });

  it('a line over the limit that arrives across chunks counts all its parts', async () => {
    const { t, proc, onclose, feed } = await started({ maxMessageBytes: 100 });
    const big = notificationOfBytes(110);
    await feed(big.slice(0, 60));
    expect(t.protocolError).toBeUndefined();
    await feed(big.slice(60) + '\n');
    expect(t.protocolError).toBe('the server sent a message of 110 bytes; at most 100 are accepted');
    expect(proc.kills).toBe(1);
    expect(onclose).toHaveBeenCalledTimes(1);
  });

  it('a message over the limit is refused before its newline arrives (one chunk)', async () => {
    const { t, proc, onclose, errors, feed } = await started({ maxMessageBytes: 100 });
    await feed('x'.repeat(101));
    expect(t.protocolError).toBe('the server sent a message of more than 100 bytes; at most 100 are accepted');
    expect(errors).toHaveLength(1);
    expect(proc.kills).toBe(1);
    expect(onclose).toHaveBeenCalledTimes(1);
  });

  it('a message over the limit is refused before its newline arrives (across chunks, after a complete message)', async () => {
    const { t, proc, onclose, messages, feed } = await started({ maxMessageBytes: 100, exitOnKill: false });
    await feed(line(req(1)) + 'y'.repeat(50));
    expect(messages).toEqual([req(1)]);
    await feed('y'.repeat(50));
    expect(t.protocolError).toBeUndefined();
    await feed('y');
    expect(t.protocolError).toBe('the server sent a message of more than 100 bytes; at most 100 are accepted');
    expect(proc.kills).toBe(1);
    expect(onclose).toHaveBeenCalledTimes(1);
    // Closed even though the process has not exited yet.
    expect(t.exit).toBeUndefined();
    await expect(t.send(req(2) as JSONRPCMessage)).rejects.toThrow('the MCP server is not running');
  });
});

describe('SandboxStdioTransport: protocol errors', () => {
  it('a line that is not JSON is a protocol error quoting it', async () => {
    const { t, proc, messages, errors, onclose, feed } = await started();
    await feed(line(req(1)) + 'Server listening on port 3000\n' + line(req(2)));
    expect(messages).toEqual([req(1)]);
    expect(t.protocolError).toBe('the server wrote something that is not JSON-RPC on stdout: "Server listening on port 3000"');
    expect(errors.map((e) => e.message)).toEqual([t.protocolError]);
    expect(proc.kills).toBe(1);
    expect(onclose).toHaveBeenCalledTimes(1);
  });

  it('the quote is the first 200 characters', async () => {
    const { t, feed } = await started();
    const noise = 'n'.repeat(150) + 'm'.repeat(150);
    await feed(noise + '\n');
    expect(t.protocolError).toBe(`the server wrote something that is not JSON-RPC on stdout: ${JSON.stringify(noise.slice(0, 200))}`);
  });

  it('the quote of a CRLF line leaves out the CR', async () => {
    const { t, feed } = await started();
    await feed('oops\r\n');
    expect(t.protocolError).toBe('the server wrote something that is not JSON-RPC on stdout: "oops"');
  });

  it.each([
    ['an object that is not JSON-RPC', '{"hello":"world"}'],
    ['a number', '42'],
    ['an array', `[${JSON.stringify(req(1))}]`],
    ['the wrong jsonrpc version', '{"jsonrpc":"1.0","id":1,"method":"x"}'],
    ['a string', '"text"'],
  ])('JSON that is not a JSON-RPC message (%s) is a protocol error quoting it', async (_name, text) => {
    const { t, proc, messages, onclose, feed } = await started();
    await feed(text + '\n');
    expect(messages).toEqual([]);
    expect(t.protocolError).toBe(`the server wrote a JSON value that is not a JSON-RPC message on stdout: ${JSON.stringify(text)}`);
    expect(proc.kills).toBe(1);
    expect(onclose).toHaveBeenCalledTimes(1);
  });

  it('only the first protocol error is kept, and onclose fires once', async () => {
    const { t, onclose, feed, proc } = await started({ exitOnKill: false });
    await feed('first\n');
    await feed('second\n');
    expect(t.protocolError).toContain('"first"');
    expect(onclose).toHaveBeenCalledTimes(1);
    proc.exit({ code: 0, signal: null });
    await tick();
    expect(onclose).toHaveBeenCalledTimes(1);
    expect(t.exit).toEqual({ code: 0, signal: null });
  });
});

describe('SandboxStdioTransport: stderr', () => {
  it('keeps what was written while it is short', async () => {
    const { t, proc } = await started();
    proc.stderr.write('warning: a\n');
    proc.stderr.write('warning: b\n');
    await tick();
    expect(t.stderrTail()).toBe('warning: a\nwarning: b\n');
  });

  it('keeps only the last 8 KiB', async () => {
    expect(STDERR_TAIL_BYTES).toBe(8 * 1024);
    const { t, proc } = await started();
    let all = '';
    for (let i = 0; i < 40; i++) {
      const chunk = `${String(i).padStart(3, '0')}:${'e'.repeat(500)}\n`;
      all += chunk;
      proc.stderr.write(chunk);
      await tick();
    }
    expect(all.length).toBeGreaterThan(STDERR_TAIL_BYTES);
    expect(t.stderrTail()).toBe(all.slice(-STDERR_TAIL_BYTES));
  });

  it('a single chunk over 8 KiB is cut to its tail too', async () => {
    const { t, proc } = await started();
    const big = 'a'.repeat(5000) + 'b'.repeat(5000);
    proc.stderr.write(big);
    await tick();
    expect(t.stderrTail()).toBe(big.slice(-STDERR_TAIL_BYTES));
  });

  it('stderr is not a protocol error', async () => {
    const { t, onclose, proc } = await started();
    proc.stderr.write('not json at all\n');
    await tick();
    expect(t.protocolError).toBeUndefined();
    expect(onclose).not.toHaveBeenCalled();
  });
});

describe('SandboxStdioTransport: sending, exit and close', () => {
  it('send writes one JSON line to stdin', async () => {
    const { t, proc } = await started();
    await t.send(req(1) as JSONRPCMessage);
    await t.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(proc.written).toEqual([line(req(1)), line({ jsonrpc: '2.0', method: 'notifications/initialized' })]);
  });

  it('send before start rejects', async () => {
    const t = new SandboxStdioTransport({ spawn: async () => fakeProcess() });
    await expect(t.send(req(1) as JSONRPCMessage)).rejects.toThrow('the MCP server is not running');
  });

  it('send after close rejects, and close ends stdin, kills, waits for the exit and fires onclose once', async () => {
    const { t, proc, onclose } = await started();
    await t.close();
    expect(proc.stdinEnded).toBe(true);
    expect(proc.kills).toBe(1);
    expect(onclose).toHaveBeenCalledTimes(1);
    expect(t.exit).toEqual({ code: null, signal: 'SIGKILL' });
    await expect(t.exited).resolves.toEqual({ code: null, signal: 'SIGKILL' });
    await expect(t.send(req(1) as JSONRPCMessage)).rejects.toThrow('the MCP server is not running');
    await t.close();
    expect(onclose).toHaveBeenCalledTimes(1);
  });

  it('send after a destroyed stdin rejects', async () => {
    const { t, proc } = await started();
    proc.stdin.destroy();
    await expect(t.send(req(1) as JSONRPCMessage)).rejects.toThrow('the MCP server is not running');
  });

  it('the process exiting fires onclose once and sets exit', async () => {
    const { t, proc, onclose, messages, feed } = await started();
    await feed(line(req(1)));
    proc.exit({ code: 3, signal: null });
    await expect(t.exited).resolves.toEqual({ code: 3, signal: null });
    await tick();
    expect(t.exit).toEqual({ code: 3, signal: null });
    expect(onclose).toHaveBeenCalledTimes(1);
    expect(t.protocolError).toBeUndefined();
    expect(proc.kills).toBe(0);
    await expect(t.send(req(2) as JSONRPCMessage)).rejects.toThrow('the MCP server is not running');
    expect(messages).toEqual([req(1)]);
  });

  it('a spawn that fails rejects start and settles exited with undefined', async () => {
    const t = new SandboxStdioTransport({
      spawn: async () => {
        throw new Error('no such command');
      },
    });
    await expect(t.start()).rejects.toThrow('no such command');
    await expect(t.exited).resolves.toBeUndefined();
  });

  it('close before start settles exited with undefined and fires onclose', async () => {
    const spawn = vi.fn(async () => fakeProcess());
    const t = new SandboxStdioTransport({ spawn });
    const onclose = vi.fn();
    t.onclose = onclose;
    await t.close();
    await expect(t.exited).resolves.toBeUndefined();
    expect(onclose).toHaveBeenCalledTimes(1);
    expect(spawn).not.toHaveBeenCalled();
  });
});

describe('SandboxStdioTransport: the stderr tail starts on a whole character', () => {
  it('continuation bytes cut off at the start are left out', async () => {
    const { t, proc } = await started();
    proc.stderr.write(Buffer.from('é'.repeat(5000), 'utf8')); // 10,000 bytes: the 8 KiB cut falls inside a character or not
    proc.stderr.write(Buffer.from('x', 'utf8'));
    await tick();
    const tail = t.stderrTail();
    expect(tail).not.toContain('\uFFFD');
    expect(tail.endsWith('éx')).toBe(true);
  });
});
