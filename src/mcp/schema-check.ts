// MCP servers' input schemas, compiled and enforced off the event loop. A schema comes from an
// untrusted peer, and JSON Schema can state work without bound: a backtracking `pattern` or
// `patternProperties` key (`^(a|a)*$` against 40 characters is hours), a union that doubles at
// every level of the input. So compiling a schema and checking a call's input against it run in a
// worker thread (src/bounded/worker.ts) with a deadline: a check that passes it ends that call
// with an error saying so, before anyone is asked and before the server is called; the thread is
// replaced and the next check runs on a fresh one. Enforcement is ajv's, unchanged
// (src/mcp/schema.ts): every keyword, pattern and format of the schema is checked as written.
import { LRUCache } from 'lru-cache';
import { BoundedWorker, Busy, Overrun, seconds } from '../bounded/worker.js';
import type { SchemaCompileResult, ThreadJob } from '../bounded/thread.js';
import { MAX_SCHEMA_BYTES } from './schema.js';

/** The longest an input schema may take to compile, or a call's input to be checked against it. */
export const SCHEMA_CHECK_DEADLINE_MS = 1500;
/** Checks waiting for the thread before more are refused (each waits at most one deadline per check ahead of it). */
export const MAX_QUEUED_SCHEMA_CHECKS = 64;

/** A call's input against its tool's schema: valid, invalid (ajv's problems), or not checked in time. */
export type SchemaVerdict = { ok: true } | { ok: false; errors: string[] } | { ok: false; unchecked: string };

export type CheckedSchema = { ok: true; validate(input: unknown, signal?: AbortSignal): Promise<SchemaVerdict> } | { ok: false; problem: string };

export class McpSchemas {
  private readonly thread: BoundedWorker;
  /**
   * Outcomes by the schema's JSON text: the same server in many sessions compiles its schemas
   * once (a schema that took too long is not tried again either).
   */
  private readonly outcomes = new LRUCache<string, Promise<CheckedSchema>>({ max: 4096 });

  constructor(opts: { deadlineMs?: number; maxQueued?: number } = {}) {
    this.thread = new BoundedWorker({
      name: 'MCP schema checks',
      deadlineMs: opts.deadlineMs ?? SCHEMA_CHECK_DEADLINE_MS,
      maxQueued: opts.maxQueued ?? MAX_QUEUED_SCHEMA_CHECKS,
      preload: 'schemas',
    });
  }

  /** How long one check may take. */
  get deadlineMs(): number {
    return this.thread.options.deadlineMs;
  }

  /** Compiles `schema` in the thread; a refusal (or a schema too slow to compile) is a problem of that tool alone. */
  compile(schema: unknown): Promise<CheckedSchema> {
    let text: string;
    try {
      text = JSON.stringify(schema) ?? '';
    } catch {
      return Promise.resolve({ ok: false, problem: 'the input schema is not JSON' });
    }
    if (schema === undefined) return Promise.resolve({ ok: false, problem: 'the input schema is not a JSON Schema object' });
    const bytes = Buffer.byteLength(text);
    if (bytes > MAX_SCHEMA_BYTES) return Promise.resolve({ ok: false, problem: `the input schema is ${bytes} bytes; at most ${MAX_SCHEMA_BYTES} are taken` });
    const known = this.outcomes.get(text);
    if (known) return known;
    const outcome = this.compileNew(text);
    this.outcomes.set(text, outcome);
    // A refusal for want of room in the queue is not the schema's fault: it is tried again next time.
    void outcome.then((c) => {
      if (!c.ok && c.problem.startsWith(BUSY) && this.outcomes.get(text) === outcome) this.outcomes.delete(text);
    });
    return outcome;
  }

  /** Stops the thread (server shutdown). */
  close(): Promise<void> {
    return this.thread.close();
  }

  private async compileNew(text: string): Promise<CheckedSchema> {
    let r: SchemaCompileResult;
    try {
      r = await this.thread.run<SchemaCompileResult>({ kind: 'schema-compile', text } satisfies ThreadJob);
    } catch (err) {
      if (err instanceof Overrun) return { ok: false, problem: `the input schema took longer than ${seconds(err.deadlineMs)} to compile` };
      if (err instanceof Busy) return { ok: false, problem: `${BUSY} (${err.message}); list the tools again later` };
      return { ok: false, problem: `the input schema could not be compiled: ${(err as Error).message}` };
    }
    if (!r.ok) return r;
    return { ok: true, validate: (input, signal) => this.validate(text, input, signal) };
  }

  private async validate(text: string, input: unknown, signal?: AbortSignal): Promise<SchemaVerdict> {
    let errors: string[];
    try {
      errors = await this.thread.run<string[]>({ kind: 'schema-validate', text, input } satisfies ThreadJob, signal ? { signal } : {});
    } catch (err) {
      if (err instanceof Overrun) {
        return { ok: false, unchecked: `checking the input against the server's input schema took longer than ${seconds(err.deadlineMs)} (a pattern or union in that schema backtracks on this input)` };
      }
      if (err instanceof Busy) return { ok: false, unchecked: `${BUSY} (${err.message})` };
      if (signal?.aborted) return { ok: false, unchecked: 'the check was cancelled with the turn' };
      return { ok: false, unchecked: `the input could not be checked against the server's input schema: ${(err as Error).message}` };
    }
    return errors.length === 0 ? { ok: true } : { ok: false, errors };
  }
}

const BUSY = 'the server is busy checking other inputs against MCP schemas';
