// What argument-aware rules cost per call: evaluateCall (the tool's check, its rule subject and
// the stages) for a compound Bash line against 100 command rules and for a Write against 100
// path rules (realpath included), against a baseline measured in the same run: the same tools
// with name-only rules. Prints ratios; nothing here is a pass/fail test.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { evaluateCall, type RuleSet } from '../src/permission/evaluate.js';
import { parseRules } from '../src/permission/rules.js';
import { Workspace } from '../src/sandbox/paths.js';
import { bashTool } from '../test/helpers/tools.js';
import { writeTool } from '../src/capabilities/files/write.js';
import type { CoreTool, ToolContext } from '../src/tools/tool.js';
import { quantile } from './lib.js';

const ITERATIONS = 20_000;

function rules(allow: string[], deny: string[] = []): RuleSet {
  return { allow: parseRules('allow', allow).rules, deny: parseRules('deny', deny).rules, ask: [] };
}

async function measure(label: string, tool: CoreTool, inputs: unknown[], ctx: ToolContext, rs: RuleSet, expect: string): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < ITERATIONS; i++) {
    const input = inputs[i % inputs.length];
    const t0 = process.hrtime.bigint();
    const d = await evaluateCall(tool, input, ctx, { mode: 'default', rules: rs });
    times.push(Number(process.hrtime.bigint() - t0) / 1000);
    if (d.behavior !== expect) throw new Error(`${label}: expected ${expect}, got ${d.behavior} (${d.reason})`);
  }
  times.sort((a, b) => a - b);
  const median = quantile(times, 0.5);
  console.log(`  ${label.padEnd(58)} median ${median.toFixed(1).padStart(6)} µs   p99 ${quantile(times, 0.99).toFixed(1).padStart(7)} µs`);
  return median;
}

const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-bench-perm-'));
try {
  await fs.mkdir(path.join(dir, 'src/deep/er'), { recursive: true });
  const ws = await Workspace.open(dir);
  const ctx = { workspace: ws } as unknown as ToolContext;
  const stub = { shells: { pendingLine: () => '' }, readDenied: () => null } as never;
  const bash = bashTool.bind(stub);
  const write = writeTool.bind(stub);

  const commandRules = Array.from({ length: 99 }, (_, i) => `Bash(tool${i} run *)`).concat('Bash(npm run test *)');
  const pathRules = Array.from({ length: 99 }, (_, i) => `Edit(pkg${i}/**/*.ts)`).concat('Edit(src/**)');
  // Distinct lines so the analyser's small cache does not hide the parse.
  const lines = Array.from({ length: 1000 }, (_, i) => ({ command: `git status && npm run test -- --shard=${i} | head -5` }));
  const writes = Array.from({ length: 1000 }, (_, i) => ({ file_path: `src/deep/er/f${i}.ts`, content: '' }));

  console.log(`permission bench: ${ITERATIONS} evaluations each, node ${process.version}`);
  const bashBase = await measure('Bash, name rule `Bash` (baseline)', bash, lines, ctx, rules(['Bash']), 'allow');
  const bashRules = await measure('Bash, compound line vs 100 command rules', bash, lines, ctx, rules(commandRules, ['Bash(rm *)']), 'allow');
  const writeBase = await measure('Write, name rule `Write` (baseline)', write, writes, ctx, rules(['Write']), 'allow');
  const writeRules = await measure('Write, resolved path vs 100 path rules', write, writes, ctx, rules(pathRules, ['Edit(secrets/**)']), 'allow');
  console.log(`  ratio: command rules ${(bashRules / bashBase).toFixed(2)}x the name-rule baseline; path rules ${(writeRules / writeBase).toFixed(2)}x`);
} finally {
  await fs.rm(dir, { recursive: true, force: true });
}
