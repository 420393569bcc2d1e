// Grep's ripgrep engine. ripgrep runs inside the session's process sandbox with the workspace
// mounted read-only: whatever it meets while walking (a symlink swapped in mid-search, a path
// into another session's workspace), it can only read what the sandbox shows, which is this
// workspace. It runs without a shell, from the workspace root, with the sandbox's environment
// (no RIPGREP_CONFIG_PATH) and `--no-config`; it never gets `--follow`/`-L` or `--pre`; the
// search path it gets was resolved and confined by the Workspace first.
//
// Flags that fix the semantics both engines share (see grep-fallback.ts):
//   --hidden --no-ignore   search everything the workspace has: hidden files too, no .gitignore
//   --glob=!.git           …except .git entries (passed last so that it always wins)
//   --no-mmap              always the buffered reader (same binary detection for every file)
// Output is machine-readable (`--null`, `--json`) and formatted by grep-output.ts.
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import type { SandboxedProcess } from '../../sandbox/session-sandbox.js';
import type { GrepCollector, GrepQuery } from './grep-output.js';
import type { SearchTarget } from './grep-fallback.js';

/** A ripgrep refusal of the input (bad regex, bad glob, unknown type): the tool's error text. */
export class RipgrepInputError extends Error {}

/** Longest single output line accepted from ripgrep (one JSON record). */
const MAX_RECORD_CHARS = 64 * 1024 * 1024;
const MAX_STDERR_CHARS = 64 * 1024;

export function ripgrepArgs(q: GrepQuery, searchArg: string): string[] {
  const args = ['--no-config', '--no-follow', '--hidden', '--no-ignore', '--no-mmap', '--color=never', '--with-filename'];
  args.push(q.ignoreCase ? '--ignore-case' : '--case-sensitive');
  if (q.multiline) args.push('--multiline');
  if (q.glob !== undefined) args.push(`--glob=${q.glob}`);
  args.push('--glob=!.git');
  if (q.type !== undefined) args.push(`--type=${q.type}`);
  if (q.mode === 'files_with_matches') {
    args.push('--files-with-matches', '--null');
  } else if (q.mode === 'count' && !q.multiline) {
    args.push('--count', '--null');
  } else {
    // Content, and count in multiline mode (where `--count` counts matches, not lines).
    args.push('--json');
    if (q.mode === 'content') args.push(`--before-context=${q.before}`, `--after-context=${q.after}`);
  }
  args.push('--', q.pattern, searchArg);
  return args;
}

/** ripgrep prints paths as given: `./x` under `.`. */
function shown(p: string): string {
  return p.startsWith('./') ? p.slice(2) : p;
}

type Data = { text: string } | { bytes: string };
function dataText(d: Data | undefined): string {
  if (!d) return '';
  return 'text' in d ? d.text : Buffer.from(d.bytes, 'base64').toString('utf8');
}

interface JsonRecord {
  type: 'begin' | 'match' | 'context' | 'end' | 'summary';
  data: { path?: Data; lines?: Data; line_number?: number | null };
}

/** Starts ripgrep (argv[0] is its path) where it may run: the session's sandbox. */
export type StartRipgrep = (argv: string[]) => Promise<SandboxedProcess>;

export async function searchRipgrep(
  start: StartRipgrep,
  rgPath: string,
  root: string,
  target: SearchTarget,
  q: GrepQuery,
  out: GrepCollector,
  signal: AbortSignal,
  exclude: (absReal: string, isDir: boolean) => boolean = () => false,
): Promise<void> {
  // ripgrep reads what it finds; entries a rule covers are dropped from what it reports.
  const left = (p: string): boolean => {
    if (!exclude(path.resolve(root, p), false)) return false;
    out.excluded.add(p);
    return true;
  };
  // Relative to the workspace root (the cwd) when inside it; an added directory is absolute.
  const searchArg = target.real === root ? '.' : target.real.startsWith(`${root}/`) ? target.real.slice(root.length + 1) : target.real;
  const args = ripgrepArgs(q, searchArg);
  const json = args.includes('--json');

  const child = await start([rgPath, ...args]);
  const kill = (): void => child.kill();
  if (signal.aborted) kill();
  signal.addEventListener('abort', kill, { once: true });

  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (s: string) => {
    if (stderr.length < MAX_STDERR_CHARS) stderr += s;
  });

  let failure: Error | null = null;
  const raw: Buffer[] = [];
  // JSON records, one per line, handled as they arrive.
  const decoder = new StringDecoder('utf8');
  const files = new Map<string, { lines: ReturnType<GrepCollector['beginFile']> | null; count: number }>();
  const onRecord = (line: string): void => {
    if (line === '') return;
    const rec = JSON.parse(line) as JsonRecord;
    if (rec.type === 'summary') return;
    const p = shown(dataText(rec.data.path));
    if (left(p)) return;
    let f = files.get(p);
    if (!f) {
      f = { lines: q.mode === 'content' ? out.beginFile(p) : null, count: 0 };
      files.set(p, f);
    }
    if (rec.type === 'match' || rec.type === 'context') {
      let text = dataText(rec.data.lines);
      if (text.endsWith('\n')) text = text.slice(0, -1);
      const parts = text.split('\n');
      const first = rec.data.line_number ?? 0;
      const isMatch = rec.type === 'match';
      if (isMatch) f.count += parts.length;
      if (f.lines) parts.forEach((t, k) => f.lines!.push(first + k, t, isMatch));
    } else if (rec.type === 'end') {
      if (f.lines) out.finishFile(f.lines);
      else out.addCount(p, f.count);
      files.delete(p);
    }
  };
  // Pieces of the record being received (a record can span many chunks: keep them apart and
  // join once, so a very long line costs linear time).
  let pending: string[] = [];
  let pendingChars = 0;
  const onText = (piece: string): void => {
    let start = 0;
    for (let nl = piece.indexOf('\n'); nl >= 0; nl = piece.indexOf('\n', start)) {
      const line = pending.length > 0 ? pending.join('') + piece.slice(start, nl) : piece.slice(start, nl);
      pending = [];
      pendingChars = 0;
      start = nl + 1;
      onRecord(line);
    }
    if (start < piece.length) {
      pending.push(piece.slice(start));
      pendingChars += piece.length - start;
      if (pendingChars > MAX_RECORD_CHARS) throw new RipgrepInputError(`a matching line is longer than ${MAX_RECORD_CHARS} characters; narrow the search`);
    }
  };
  child.stdout.on('data', (chunk: Buffer) => {
    if (failure) return;
    if (!json) {
      raw.push(chunk);
      return;
    }
    try {
      onText(decoder.write(chunk));
    } catch (err) {
      failure = err as Error;
      kill();
    }
  });
  const done = await child.exited.finally(() => signal.removeEventListener('abort', kill));
  if (done.error !== undefined) throw new Error(`ripgrep could not be started: ${done.error}`);
  if (done.limit) throw new RipgrepInputError(`the search was stopped: ${done.limit}`);
  const exit = { code: done.code, sig: done.signal };

  if (signal.aborted) throw new Error('cancelled');
  if (failure) throw failure;
  if (json) onText(`${decoder.end()}\n`);

  if (exit.code === 2) {
    const lines = stderr.split('\n').filter((l) => l.trim() !== '');
    const io = lines.filter((l) => /\(os error \d+\)\s*$/.test(l));
    if (lines.length === 0 || io.length !== lines.length) throw new RipgrepInputError(stderr.trim() || 'ripgrep failed');
    out.unreadable += io.length;
  } else if (exit.code !== 0 && exit.code !== 1) {
    throw new Error(`ripgrep exited with ${exit.code ?? exit.sig}: ${stderr.trim()}`);
  }

  if (!json) {
    const buf = Buffer.concat(raw);
    if (q.mode === 'files_with_matches') {
      for (const p of buf.toString('utf8').split('\0')) if (p !== '' && !left(shown(p))) out.addCount(shown(p), 1);
    } else {
      // `path\0N\n` per file (a newline inside a path cannot confuse this: N is digits).
      let pos = 0;
      while (pos < buf.length) {
        const nul = buf.indexOf(0, pos);
        if (nul < 0) break;
        const nl = buf.indexOf(10, nul);
        const end = nl < 0 ? buf.length : nl;
        const p = shown(buf.toString('utf8', pos, nul));
        if (!left(p)) out.addCount(p, Number(buf.toString('utf8', nul + 1, end)));
        pos = end + 1;
      }
    }
  }
}
