// What the command analyser costs on the largest inputs the tools accept: each shape of
// bench/analyzer-inputs.ts (100 000 characters) against a baseline measured in the same run (the
// same length of plain `ls` lines), then rule matching of a long line against hundreds of rules,
// and a PTY shell's unfinished text. Prints the worst times and their ratio to the baseline;
// nothing here is a pass/fail test.
import { allowingRules, firstLenientMatch, parseRules } from '../src/permission/rules.js';
import { advance, analyzeCommand, MAX_PENDING } from '../src/permission/shell.js';
import { baseline, largeInputs, repeat } from './analyzer-inputs.js';

const RUNS = 9;

interface Timing {
  median: number;
  worst: number;
}

/** Median and slowest of RUNS runs after a warm-up (the worst case is what matters here). */
function time(fn: (run: number) => void): Timing {
  fn(-1);
  const t: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = process.hrtime.bigint();
    fn(i);
    t.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  t.sort((x, y) => x - y);
  return { median: t[Math.floor(RUNS / 2)]!, worst: t[RUNS - 1]! };
}

function row(label: string, t: Timing, base: Timing, note: string): void {
  const ms = (x: number) => x.toFixed(1).padStart(6);
  console.log(`  ${label.padEnd(32)} median ${ms(t.median)} ms ×${(t.median / base.median).toFixed(2).padStart(5)}   worst ${ms(t.worst)} ms ×${(t.worst / base.worst).toFixed(2).padStart(5)}  ${note}`);
}

const base = baseline();
const baseMs = time(() => analyzeCommand(base));
const b = analyzeCommand(base);
console.log(`analyzeCommand, ${base.length} characters, ${RUNS} runs each`);
row('baseline: ls lines', baseMs, baseMs, b.ok ? `ok, ${b.commands.length} commands` : b.reason);
let slowest = { name: '', median: 0, worst: 0 };
for (const { name, command } of largeInputs()) {
  const ms = time(() => analyzeCommand(command));
  if (ms.median > slowest.median) slowest = { name, ...ms };
  const r = analyzeCommand(command);
  row(name, ms, baseMs, r.ok ? `ok, ${r.commands.length} commands` : r.reason.slice(0, 70));
}

// Rule matching: 500 rules for one program against a line of distinct commands of it.
const rules = parseRules('rules', Array.from({ length: 500 }, (_, i) => `Bash(git sub${i} *)`)).rules;
const line = Array.from({ length: 999 }, (_, i) => `git status --porcelain=v${i}`).join('; ');
const analysis = analyzeCommand(line);
const ctx = { toolName: 'Bash', subject: { kind: 'command' as const, analysis }, root: '/ws' };
console.log(`\nrule matching, 500 rules × ${analysis.ok ? analysis.commands.length : 0} distinct commands`);
row('deny (lenient)', time(() => firstLenientMatch(rules, 'deny', ctx)), baseMs, 'no match');
row('allow (strict)', time(() => allowingRules(rules, ctx)), baseMs, 'no match');

// A PTY shell holding a long unfinished here-document, completed by one more line.
const held = `cat <<EOF\n${repeat('x $(ls)', '\n', MAX_PENDING - 20)}\n`;
console.log(`\nShellWrite, ${held.length} characters held`);
// A different input each run: advance remembers its last results.
row('advance (still incomplete)', time((i) => advance(held, `more ${i}\r`)), baseMs, '');
row('advance + analysis (completed)', time((i) => {
  const a = advance(held, `echo ${i}\nEOF\r`);
  analyzeCommand(a.run);
}), baseMs, '');

console.log(`\nslowest input: ${slowest.name}, median ${slowest.median.toFixed(1)} ms (×${(slowest.median / baseMs.median).toFixed(2)} the baseline), worst ${slowest.worst.toFixed(1)} ms`);
