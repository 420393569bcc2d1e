// The command analyser's public API (SPEC §4, §9.3, §9.7); see shell/analyze.ts (what a line
// runs), shell/read-only.ts (the read-only judgement and dangers), shell/pattern.ts (Bash(...)
// patterns) and shell/continuation.ts (what a PTY shell runs as input is typed).
export { analyzeCommand } from './shell/analyze.js';
export { isReadOnlyCommand } from './shell/read-only.js';
export { matchCommandPattern, PatternIndex, validateCommandPattern } from './shell/pattern.js';
export { quoteWord } from './shell/words.js';
export { MAX_DEPTH, MAX_INPUT, type CommandAnalysis, type Danger, type PatternBehavior, type Redirect, type SimpleCommand } from './shell/types.js';
export { advance, MAX_PENDING, type Advance } from './shell/continuation.js';
