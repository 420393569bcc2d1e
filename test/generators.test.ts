// The committed OpenAPI document through the client generators people reach for, each with its
// default output (a fetch client where a generator offers a choice: no runtime package needed),
// and the generated code compiled with `tsc --strict --noEmit`: a document a generator accepts
// but whose client does not compile is as broken, to its users, as one it rejects.
//
// Versions are the devDependencies (the newest that run on Node 20): @hey-api/openapi-ts,
// swagger-typescript-api, openapi-typescript-codegen and orval. openapi-typescript (the typed
// client's own generator) is checked by test/client.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const documentPath = path.join(root, 'openapi', 'openapi.json');
const modules = path.join(root, 'node_modules');

/** Only what a generator needs to run: no telemetry, no update check, no colour. */
const env = { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), NO_COLOR: '1', FORCE_COLOR: '0', CI: 'true', NO_UPDATE_NOTIFIER: '1' };

async function node(args: string[], cwd: string): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, args, { cwd, env, timeout: 90_000, maxBuffer: 32 * 1024 * 1024 });
    return { code: 0, out: stdout + stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string; message: string };
    return { code: typeof e.code === 'number' ? e.code : 1, out: `${e.stdout ?? ''}${e.stderr ?? ''}${e.message}` };
  }
}

/** Compiles every .ts file under `dir` with --strict (and the DOM's fetch types), emitting nothing. */
async function compileStrict(dir: string): Promise<{ code: number; out: string }> {
  const tsconfig = {
    compilerOptions: {
      strict: true,
      noEmit: true,
      target: 'ES2022',
      module: 'ESNext',
      moduleResolution: 'Bundler',
      lib: ['ES2022', 'DOM', 'DOM.Iterable'],
      types: [],
      skipLibCheck: true,
    },
    include: ['**/*.ts'],
  };
  await fs.writeFile(path.join(dir, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
  return node([path.join(modules, 'typescript', 'bin', 'tsc'), '-p', path.join(dir, 'tsconfig.json')], dir);
}

async function tsFiles(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { recursive: true });
  return entries.filter((f) => f.endsWith('.ts'));
}

interface Generator {
  name: string;
  /** The generator's command line (after `node`), writing into `out`. */
  args(out: string): string[];
}

const GENERATORS: Generator[] = [
  {
    // Types, an SDK of one function per operation, and its bundled fetch client.
    name: '@hey-api/openapi-ts',
    args: (out) => [path.join(modules, '@hey-api', 'openapi-ts', 'bin', 'run.js'), '-i', documentPath, '-o', out],
  },
  {
    // One file: the types and an Api class over fetch (its default http client).
    name: 'swagger-typescript-api',
    args: (out) => [path.join(modules, 'swagger-typescript-api', 'dist', 'cli.mjs'), 'generate', '-p', documentPath, '-o', out, '-n', 'api.ts'],
  },
  {
    // Models, services and the core request code, over fetch (its default client).
    name: 'openapi-typescript-codegen',
    args: (out) => [path.join(modules, 'openapi-typescript-codegen', 'bin', 'index.js'), '-i', documentPath, '-o', out, '--client', 'fetch'],
  },
  {
    // Orval's fetch client: its default, axios, needs the axios package at run time.
    name: 'orval',
    args: (out) => [path.join(modules, 'orval', 'dist', 'bin', 'orval.js'), '--input', documentPath, '--output', path.join(out, 'api.ts'), '--client', 'fetch'],
  },
];

describe('client generators on openapi/openapi.json', () => {
  let tmp: string;
  beforeAll(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-generators-'));
  });
  afterAll(async () => {
    if (tmp) await fs.rm(tmp, { recursive: true, force: true });
  });

  for (const g of GENERATORS) {
    it(`${g.name}: generates a client that compiles with tsc --strict`, async () => {
      const out = path.join(tmp, g.name.replace(/[@/]/g, '_'));
      await fs.mkdir(out, { recursive: true });
      const generated = await node(g.args(out), tmp);
      expect(generated.code, generated.out).toBe(0);
      expect((await tsFiles(out)).length, generated.out).toBeGreaterThan(0);
      const compiled = await compileStrict(out);
      expect(compiled.out.trim(), 'tsc --strict').toBe('');
      expect(compiled.code).toBe(0);
      await fs.rm(out, { recursive: true, force: true });
    }, 120_000);
  }
});
