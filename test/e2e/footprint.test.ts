// What the server loads at start: libraries only some requests need are loaded on first use, so
// a server that never uses them does not hold them (docs/DESIGN.md, "Where the time goes").
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchServer, type ServerProcess } from '../helpers/server-process.js';

const preload = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'record-loads.mjs');
const LAZY = ['undici', 'htmlparser2', 'entities', 'diff'];

let dir: string;
let server: ServerProcess;
let loadsFile: string;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-footprint-'));
  loadsFile = path.join(dir, 'loads.txt');
  server = await launchServer(
    { NORMA_DATA_DIR: path.join(dir, 'data'), NORMA_SANDBOX: 'off', NORMA_TEST_LOADS_FILE: loadsFile, NODE_OPTIONS: `--import ${preload}` },
    undefined,
    { startTimeoutMs: 60_000 },
  );
}, 90_000);
afterAll(async () => {
  await server?.kill();
  await fs.rm(dir, { recursive: true, force: true });
});

/** The bare package names loaded so far (a request for `diff` or `diff/lib/...`). */
async function loaded(): Promise<Set<string>> {
  const lines = (await fs.readFile(loadsFile, 'utf8')).split('\n');
  const names = new Set<string>();
  for (const l of lines) {
    const spec = l.split(' ')[1];
    if (!spec || spec.startsWith('.') || spec.startsWith('/') || spec.startsWith('node:') || spec.startsWith('file:')) continue;
    names.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
  }
  return names;
}

describe('the server at start', () => {
  it('has not loaded undici, the HTML parser or diff; an edit loads diff when it needs it', async () => {
    // Serving requests (and the validators compiled a second after listening) loads none of them.
    const s = await server.api.post('/v1/sessions', { permission_mode: 'acceptEdits' });
    expect(s.status).toBe(201);
    await new Promise((r) => setTimeout(r, 1500));
    const atStart = await loaded();
    // The recorder works: it saw what the server does load at start.
    expect(atStart.has('fastify')).toBe(true);
    expect(atStart.has('better-sqlite3')).toBe(true);
    for (const name of LAZY) expect(atStart.has(name), `${name} loaded at start`).toBe(false);

    const turn = await server.api.post(`/v1/sessions/${s.body.id}/turns?wait=20`, {
      tool_uses: [
        { name: 'Write', input: { file_path: 'a.txt', content: 'hello\n' } },
        { name: 'Edit', input: { file_path: 'a.txt', old_string: 'hello', new_string: 'goodbye' } },
      ],
    });
    expect(turn.body.status).toBe('completed');
    expect(turn.body.results.map((r: { is_error: boolean }) => r.is_error)).toEqual([false, false]);
    const after = await loaded();
    expect(after.has('diff')).toBe(true);
    for (const name of ['undici', 'htmlparser2']) expect(after.has(name), `${name} loaded by an edit`).toBe(false);
  }, 60_000);
});
