// Search tools' cost: Grep through the tool (ripgrep engine and TypeScript fallback) against a raw
// `rg` run of the same search, and Glob through the tool against a bare recursive readdir walk
// with the same matcher. Each figure is the median of BENCH_RUNS runs (after one warm-up run).
//   npx tsx bench/search.ts                      (defaults: ~20,000 files, 5 runs)
//   BENCH_FILES=50000 BENCH_RUNS=9 npx tsx bench/search.ts
// The tree lives in a temporary directory that is removed at the end, also on failure.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Workspace } from '../src/sandbox/paths.js';
import { globTool } from '../src/capabilities/files/glob.js';
import { compileSegmentGlob, initialState, isAccepting, canContinue, stepState, type MatchState } from '../src/glob/segments.js';
import { createGrepTool, findRipgrep } from '../src/capabilities/files/grep.js';
import { createSandboxHost } from '../src/sandbox/host.js';
import { DEFAULT_LIMITS } from '../src/sandbox/limits.js';
import { SessionSandbox } from '../src/sandbox/session-sandbox.js';
import type { CoreTool, ToolContext } from '../src/tools/tool.js';

const FILES = Number(process.env.BENCH_FILES ?? 20_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);

/** Deterministic pseudo-random numbers (LCG). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'const', 'return', 'function', 'value', 'import', 'export', 'error', 'result'];

/** ~FILES files: 20 top directories × 10 subdirectories × N files, 5–60 lines each. */
function buildTree(root: string): number {
  const r = rng(7);
  const exts = ['ts', 'js', 'py', 'md', 'json', 'txt', 'go'];
  const perDir = Math.max(1, Math.round(FILES / 200));
  let n = 0;
  for (let a = 0; a < 20; a++) {
    for (let b = 0; b < 10; b++) {
      const dir = path.join(root, `pkg${a}`, `mod${b}`);
      mkdirSync(dir, { recursive: true });
      for (let c = 0; c < perDir; c++) {
        const lines: string[] = [];
        const count = 5 + Math.floor(r() * 55);
        for (let k = 0; k < count; k++) {
          const w = () => WORDS[Math.floor(r() * WORDS.length)]!;
          lines.push(r() < 0.01 ? `// TODO(${n}): ${w()} ${w()}` : `${w()} ${w()} = ${w()}(${Math.floor(r() * 1000)});`);
        }
        writeFileSync(path.join(dir, `file${c}.${exts[(n + c) % exts.length]}`), `${lines.join('\n')}\n`);
        n++;
      }
    }
  }
  return n;
}

async function median(label: string, fn: () => Promise<unknown>): Promise<number> {
  await fn(); // warm-up (page cache, JIT)
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  times.sort((x, y) => x - y);
  const m = times[Math.floor(times.length / 2)]!;
  console.log(`  ${label.padEnd(44)} ${m.toFixed(1).padStart(9)} ms   (runs: ${times.map((t) => t.toFixed(0)).join(', ')})`);
  return m;
}

/** Runs rg to completion, discarding its output. */
function rawRg(rg: string, cwd: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(rg, args, { cwd, env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout.resume();
    child.once('error', reject);
    child.once('close', (code) => (code === 0 || code === 1 ? resolve() : reject(new Error(`rg exited with ${code}`))));
  });
}

/** A bare recursive walk (no confinement, no stat) applying the same segment matcher as Glob. */
async function bareGlob(root: string, pattern: string): Promise<number> {
  const glob = compileSegmentGlob(pattern);
  let found = 0;
  const walk = async (dir: string, state: MatchState): Promise<void> => {
    const entries = await fs.readdir(dir, { withFileTypes: true });
    const subdirs: Promise<void>[] = [];
    for (const e of entries) {
      const next = stepState(glob, state, e.name);
      if (next.length === 0) continue;
      if (e.isDirectory()) {
        if (canContinue(glob, next)) subdirs.push(walk(path.join(dir, e.name), next));
      } else if (isAccepting(glob, next)) {
        found++;
      }
    }
    await Promise.all(subdirs);
  };
  await walk(root, initialState(glob));
  return found;
}

async function callTool(tool: CoreTool, input: unknown, ctx: ToolContext): Promise<string> {
  const out = await tool.call(input, ctx);
  if (out.isError) throw new Error(`${tool.name} failed: ${(out.content[0] as { text: string } | undefined)?.text}`);
  return (out.content[0] as { text: string } | undefined)?.text ?? '';
}

async function main(): Promise<void> {
  const rg = findRipgrep();
  const cleanups: (() => Promise<void>)[] = [];
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-bench-search-'));
  try {
    const t0 = performance.now();
    const files = buildTree(dir);
    console.log(`tree: ${files} files in ${dir} (built in ${((performance.now() - t0) / 1000).toFixed(1)} s); median of ${RUNS} runs`);
    const ws = await Workspace.open(dir);
    // Glob and Grep use only the workspace and the signal of their context.
    const ctx = { sessionId: 'bench', turnId: 'bench', toolUseId: 'bench', workspace: ws, signal: new AbortController().signal, progress: () => undefined } as unknown as ToolContext;
    // Grep runs ripgrep only inside the session's process sandbox: the tool's figure includes it.
    const host = await createSandboxHost('bwrap', 'auto');
    const scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-bench-state-'));
    await fs.chmod(dir, 0o755); // the sandbox user of a root server reads the tree
    const status = await host.selfTest(path.join(scratch, 'selftest'), scratch);
    if (!status.usable) console.log(`  (the process sandbox is unusable here: ${status.detail}; ripgrep figures are missing)`);
    const sandbox = new SessionSandbox(host, {
      sessionId: 'ses_bench',
      workspace: dir,
      network: false,
      limits: DEFAULT_LIMITS,
      stateDir: path.join(scratch, 'state'),
      egress: { allow: [] },
      ownAddresses: () => [],
      onEgress: () => undefined,
    });
    cleanups.push(async () => {
      await sandbox.close();
      await host.limits.close();
      await fs.rm(scratch, { recursive: true, force: true });
    });
    const deps = { readDenied: () => null, sandbox } as never;
    const fallback = createGrepTool({ rgPath: null }).bind(deps);
    const viaRg = rg && status.usable ? createGrepTool({ rgPath: rg }).bind(deps) : null;
    const glob = globTool.bind(deps);

    const searches: { name: string; input: Record<string, unknown>; rgArgs: string[] }[] = [
      { name: 'files_with_matches "TODO"', input: { pattern: 'TODO' }, rgArgs: ['--files-with-matches', '--null'] },
      { name: 'content "TODO\\(\\d+\\)" -C 1', input: { pattern: 'TODO\\(\\d+\\)', output_mode: 'content', '-C': 1 }, rgArgs: ['--json', '-C', '1'] },
      { name: 'count -i "ERROR"', input: { pattern: 'ERROR', output_mode: 'count', '-i': true }, rgArgs: ['--count', '--null', '-i'] },
    ];
    console.log('\nGrep');
    for (const s of searches) {
      console.log(` ${s.name}`);
      const base = ['--no-config', '--hidden', '--no-ignore', '--glob=!.git', ...s.rgArgs, '--', s.input.pattern as string, '.'];
      const raw = rg ? await median('raw rg', () => rawRg(rg, dir, base)) : NaN;
      const tool = viaRg ? await median('Grep tool, ripgrep engine', () => callTool(viaRg, s.input, ctx)) : NaN;
      const fb = await median('Grep tool, TypeScript fallback', () => callTool(fallback, s.input, ctx));
      if (viaRg && (await callTool(viaRg, s.input, ctx)) !== (await callTool(fallback, s.input, ctx))) {
        console.log('  !! the two engines disagree on this search');
      }
      console.log(`  ratios: ripgrep engine / raw rg = ${(tool / raw).toFixed(2)}x, fallback / raw rg = ${(fb / raw).toFixed(2)}x, fallback / ripgrep engine = ${(fb / tool).toFixed(2)}x`);
    }
    if (!rg) console.log('  (rg is not on PATH: ripgrep figures are missing)');

    console.log('\nGlob');
    for (const pattern of ['**/*.ts', 'pkg1*/**/file1?.*', '**/mod3/*.{md,json}']) {
      console.log(` "${pattern}"`);
      const bare = await median('bare readdir walk + same matcher', () => bareGlob(dir, pattern));
      const tool = await median('Glob tool', () => callTool(glob, { pattern }, ctx));
      console.log(`  ratio: Glob tool / bare walk = ${(tool / bare).toFixed(2)}x`);
    }
  } finally {
    for (const c of cleanups) await c().catch(() => undefined);
    await fs.rm(dir, { recursive: true, force: true });
  }
}

await main();
