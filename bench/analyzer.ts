// What the command analyser costs on the largest inputs the tools accept: each shape of
// bench/analyzer-inputs.ts (100 000 characters) against a baseline measured in the same run (the
// same length of plain `ls` lines), then rule matching of a long line against hundreds of rules,
// and a PTY shell's unfinished text. Prints the worst times and their ratio to the baseline;
// nothing here is a pass/fail test.
import { allowingRules, firstLenientMatch, parseRules } from '../src/permission/rules.js';
import { advance, analyzeCommand, MAX_PENDING } from '../src/permission/shell.js';
import { baseline, largeInputs, repeat } from './analyzer-inputs.js';

const RUNS = 7;

/** The slowest of RUNS runs after a warm-up (the worst case is what matters here). */
function worst(fn: (run: number) => void): number {
  fn(-1);
  let max = 0;
  for (let i = 0; i < RUNS; i++) {
    const t0 = process.hrtime.bigint();
    fn(i);
    max = Math.max(max, Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return max;
}

function row(label: string, ms: number, base: number, note: string): void {
  console.log(`  ${label.padEnd(34)} ${ms.toFixed(1).padStart(7)} ms  ×${(ms / base).toFixed(2).padStart(6)}  ${note}`);
}

const base = baseline();
const baseMs = worst(() => analyzeCommand(base));
const b = analyzeCommand(base);
console.log(`analyzeCommand, ${base.length} characters, worst of ${RUNS} runs`);
row('baseline: ls lines', baseMs, baseMs, b.ok ? `ok, ${b.commands.length} commands` : b.reason);
let slowest = 0;
for (const { name, command } of largeInputs()) {
  const ms = worst(() => analyzeCommand(command));
  slowest = Math.max(slowest, ms);
  const r = analyzeCommand(command);
  row(name, ms, baseMs, r.ok ? `ok, ${r.commands.length} commands` : r.reason.slice(0, 70));
}

// Rule matching: 500 rules for one program against a line of distinct commands of it.
const rules = parseRules('rules', Array.from({ length: 500 }, (_, i) => `Bash(git sub${i} *)`)).rules;
const line = Array.from({ length: 999 }, (_, i) => `git status --porcelain=v${i}`).join('; ');
const analysis = analyzeCommand(line);
const ctx = { toolName: 'Bash', subject: { kind: 'command' as const, analysis }, root: '/ws' };
console.log(`\nrule matching, 500 rules × ${analysis.ok ? analysis.commands.length : 0} distinct commands`);
row('deny (lenient)', worst(() => firstLenientMatch(rules, 'deny', ctx)), baseMs, 'no match');
row('allow (strict)', worst(() => allowingRules(rules, ctx)), baseMs, 'no match');

// A PTY shell holding a long unfinished here-document, completed by one more line.
const held = `cat <<EOF\n${repeat('x $(ls)', '\n', MAX_PENDING - 20)}\n`;
console.log(`\nShellWrite, ${held.length} characters held`);
// A different input each run: advance remembers its last results.
row('advance (still incomplete)', worst((i) => advance(held, `more ${i}\r`)), baseMs, '');
row('advance + analysis (completed)', worst((i) => {
  const a = advance(held, `echo ${i}\nEOF\r`);
  analyzeCommand(a.run);
}), baseMs, '');

console.log(`\nslowest input: ${slowest.toFixed(1)} ms (×${(slowest / baseMs).toFixed(2)} the baseline)`);
