// Worker thread entry (src/bounded/worker.ts drives it): the work on schemas and patterns from
// outside whose cost cannot be bounded in advance. Whatever it does, the server's event loop
// goes on; a job that passes its deadline ends with the thread.
//   schema-compile   an MCP server's input schema, compiled (the outcome is kept for validation)
//   schema-validate  a call's input against such a schema (compiled first when this thread has
//                    not seen it: a replaced thread starts empty)
//   regex-lines      the index of the first of `lines` a regular expression matches, or -1
import { parentPort, workerData } from 'node:worker_threads';
import type { McpSchemaCompiler } from '../mcp/schema.js';

export type ThreadJob =
  | { kind: 'schema-compile'; text: string }
  | { kind: 'schema-validate'; text: string; input: unknown }
  | { kind: 'regex-lines'; source: string; flags: string; lines: string[] };

export type SchemaCompileResult = { ok: true } | { ok: false; problem: string };

// ajv is loaded with the first schema job: a thread that only matches patterns does without it.
let compiler: McpSchemaCompiler | undefined;
async function schemas(): Promise<McpSchemaCompiler> {
  if (!compiler) {
    const { McpSchemaCompiler } = await import('../mcp/schema.js');
    compiler = new McpSchemaCompiler();
  }
  return compiler;
}

/** ajv loaded, and each dialect's meta-schema compiled (its first schema does it otherwise, on that job's time). */
async function warmSchemas(): Promise<void> {
  const c = await schemas();
  for (const $schema of ['http://json-schema.org/draft-07/schema#', 'https://json-schema.org/draft/2019-09/schema', 'https://json-schema.org/draft/2020-12/schema']) {
    c.compile({ $schema, type: 'object', properties: { warm: { type: 'string', format: 'date-time' } } });
  }
}

async function run(job: ThreadJob): Promise<unknown> {
  switch (job.kind) {
    case 'schema-compile': {
      const c = (await schemas()).compile(JSON.parse(job.text), job.text);
      return c.ok ? { ok: true } : { ok: false, problem: c.problem };
    }
    case 'schema-validate': {
      const s = await schemas();
      const c = s.known(job.text) ?? s.compile(JSON.parse(job.text), job.text);
      if (!c.ok) throw new Error(c.problem);
      return c.validate(job.input);
    }
    case 'regex-lines': {
      const re = new RegExp(job.source, job.flags);
      return job.lines.findIndex((line) => {
        re.lastIndex = 0;
        return re.test(line);
      });
    }
  }
}

parentPort!.on('message', (m: { id: number; job: ThreadJob }) => {
  run(m.job).then(
    (result) => parentPort!.postMessage({ id: m.id, ok: true, result }),
    (err: unknown) => parentPort!.postMessage({ id: m.id, ok: false, error: err instanceof Error ? err.message : String(err) }),
  );
});
// The schema thread loads ajv before it says it is ready: a job's deadline is for the job alone.
const preload = (workerData as { preload?: string } | null)?.preload === 'schemas' ? warmSchemas() : Promise.resolve();
void preload.then(() => parentPort!.postMessage({ ready: true }));
