// Grep's pure-TypeScript engine, used when ripgrep is not installed. It reproduces ripgrep's
// behaviour under the flags the Grep tool passes (see grep.ts) so both engines print the same:
//   - walk: everything under the search path, hidden files included, ignore files not read,
//     `.git` entries skipped; symlinks (to files or directories) and special files skipped;
//     every directory listed and every file opened through the Workspace;
//   - filters: ripgrep's override semantics for `glob` (the last matching glob decides, an
//     inclusion glob leaves out the files it does not match, and wins over `type`), a file
//     type table (src/glob/file-types.ts); a file named as the path is searched whatever the
//     filters say;
//   - binary files: read in ripgrep's buffer steps (64 KiB, the first read being its 3-byte BOM
//     sniff); a buffer fill that brings a NUL byte ends the search of that file, so a NUL in the
//     first 64 KiB skips the file and a later one keeps only what was found before it (count
//     mode then reports nothing for the file, as ripgrep does); a UTF-8 BOM is dropped.
//     ripgrep reuses a grown buffer for the next file a thread searches, so for a file whose
//     first NUL comes after 64 KiB its own result depends on what was searched before: parity
//     is only guaranteed for files without NUL or with one in their first 64 KiB;
//   - lines are read a buffer at a time (memory bounded by the buffer and the longest line, capped
//     at MAX_LINE_BYTES); multiline search reads whole files up to MULTILINE_MAX_BYTES (binary =
//     a NUL in the first 64 KiB, as ripgrep checks whole-file searches).
import type { Dirent } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Workspace } from '../../sandbox/paths.js';
import { fileTypeMatcher, FILE_TYPES } from '../../glob/file-types.js';
import { compileIgnoreGlob, OverrideFilter } from '../../glob/match.js';
import { childRel, mapLimit, walkTree, type WalkDir } from './glob-walk.js';
import { GrepCollector, type FileLines, type GrepQuery } from './grep-output.js';
import { translateRegex } from './grep-regex.js';

/** ripgrep's read buffer (grep-searcher's DEFAULT_BUFFER_CAPACITY). */
export const RG_BUFFER_BYTES = 64 * 1024;
/** A line longer than this ends the search of its file (noted). */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;
/** Files larger than this are not searched in multiline mode (noted). */
export const MULTILINE_MAX_BYTES = 32 * 1024 * 1024;

/** An input the fallback cannot search with (unknown type…): reported as the tool's error. */
export class GrepUsageError extends Error {}

export interface SearchTarget {
  kind: 'dir' | 'file';
  /** Real absolute path. */
  real: string;
  /** Display path (relative to the workspace). */
  rel: string;
  /** A directory's entries when the caller already listed it. */
  entries?: Dirent[];
}

interface Engine {
  re: RegExp;
  /** Whole-chunk test that can only miss when no line matches; null when unsound for the pattern. */
  prefilter: RegExp | null;
}

export function fallbackTypeNames(): string[] {
  return Object.keys(FILE_TYPES).sort();
}

export async function searchFallback(
  ws: Workspace,
  target: SearchTarget,
  q: GrepQuery,
  out: GrepCollector,
  signal: AbortSignal,
  exclude: (absReal: string, isDir: boolean) => boolean = () => false,
): Promise<void> {
  const re = translateRegex(q.pattern, { ignoreCase: q.ignoreCase, multiline: q.multiline });
  // `\A`, `\z` and look-around can match a line alone but not inside a chunk of lines.
  const prefilterSound = !/\\[Az]|\(\?<?[=!]/.test(q.pattern);
  const engine: Engine = { re, prefilter: prefilterSound ? re : null };

  const overrides = new OverrideFilter([...(q.glob !== undefined ? [compileIgnoreGlob(q.glob)] : []), compileIgnoreGlob('!.git')]);
  let typeTest: ((name: string) => boolean) | null = null;
  if (q.type !== undefined) {
    typeTest = fileTypeMatcher(q.type);
    if (!typeTest) throw new GrepUsageError(`unrecognized file type: ${q.type} (the built-in search knows: ${fallbackTypeNames().join(', ')})`);
  }

  const notes = { oversizeMultiline: 0, longLines: 0 };
  const searchOne = async (abs: string, rel: string): Promise<void> => {
    if (signal.aborted) return;
    let file;
    try {
      file = await ws.openForRead(abs);
    } catch {
      out.unreadable++;
      return;
    }
    try {
      if (q.multiline) {
        if (file.size > MULTILINE_MAX_BYTES) notes.oversizeMultiline++;
        else await searchWhole(file.handle, file.size, rel, engine, q, out);
      } else if (await searchLines(file.handle, file.size, rel, engine, q, out, signal)) {
        notes.longLines++;
      }
    } catch {
      out.unreadable++;
    } finally {
      await file.handle.close();
    }
  };

  if (target.kind === 'file') {
    await searchOne(target.real, target.rel);
  } else {
    const start: WalkDir<null> = { abs: target.real, rel: target.rel, state: null };
    const stats = await walkTree<null>(
      ws,
      start,
      async (dir, entries) => {
        const subdirs: WalkDir<null>[] = [];
        const files: { abs: string; rel: string }[] = [];
        for (const e of entries) {
          const rel = childRel(dir.rel, e.name);
          if ((e.isDirectory() || e.isFile()) && exclude(path.join(dir.abs, e.name), e.isDirectory())) {
            out.excluded.add(rel);
            continue;
          }
          if (e.isDirectory()) {
            if (overrides.verdict(rel, true) !== 'exclude') subdirs.push({ abs: path.join(dir.abs, e.name), rel, state: null });
          } else if (e.isFile()) {
            const v = overrides.verdict(rel, false);
            if (v === 'exclude') continue;
            if (v === 'none' && typeTest && !typeTest(e.name)) continue;
            files.push({ abs: path.join(dir.abs, e.name), rel });
          }
          // Symlinks and special files are skipped, as ripgrep does without --follow.
        }
        await mapLimit(files, 4, (f) => searchOne(f.abs, f.rel));
        return subdirs;
      },
      { signal, ...(target.entries ? { startEntries: target.entries } : {}) },
    );
    out.unreadable += stats.unreadableDirs;
    if (stats.aborted) throw new Error('cancelled');
  }
  if (signal.aborted) throw new Error('cancelled');
  if (notes.oversizeMultiline > 0) {
    out.notes.push(`[${notes.oversizeMultiline} file(s) larger than ${MULTILINE_MAX_BYTES / 1024 / 1024} MiB were not searched (multiline search reads whole files)]`);
  }
  if (notes.longLines > 0) {
    out.notes.push(`[${notes.longLines} file(s) have a line longer than ${MAX_LINE_BYTES / 1024 / 1024} MiB; they were searched only up to it]`);
  }
}

/** Per-file line handling shared by the streaming and whole-file searches. */
class LineSink {
  matched = 0;
  private readonly lines: FileLines | null;
  private readonly ring: { no: number; text: string }[] = [];
  private afterLeft = 0;

  constructor(
    private readonly rel: string,
    private readonly q: GrepQuery,
    private readonly out: GrepCollector,
  ) {
    this.lines = q.mode === 'content' ? out.beginFile(rel) : null;
  }

  /** Returns false when the file needs no more lines (files_with_matches found one). */
  line(no: number, text: string, isMatch: boolean): boolean {
    if (isMatch) {
      this.matched++;
      if (this.q.mode === 'files_with_matches') return false;
      if (!this.lines) return true;
      for (const r of this.ring) this.lines.push(r.no, r.text, false);
      this.ring.length = 0;
      this.lines.push(no, text, true);
      this.afterLeft = this.q.after;
    } else if (this.lines) {
      if (this.afterLeft > 0) {
        this.afterLeft--;
        this.lines.push(no, text, false);
      } else if (this.q.before > 0) {
        this.ring.push({ no, text });
        if (this.ring.length > this.q.before) this.ring.shift();
      }
    }
    return true;
  }

  /** Whether non-matching lines still matter (context), so they must be visited one by one. */
  get wantsContext(): boolean {
    return this.lines !== null && (this.q.before > 0 || this.afterLeft > 0);
  }

  /**
   * `binary`: the search stopped at binary data. Like ripgrep, count mode then reports nothing
   * for the file (a partial count would mislead), while files_with_matches and content keep what
   * was found before it.
   */
  finish(binary = false): void {
    if (this.lines) this.out.finishFile(this.lines);
    else if (this.q.mode === 'files_with_matches') this.out.addCount(this.rel, Math.min(this.matched, 1));
    else if (!binary) this.out.addCount(this.rel, this.matched);
  }
}

const UTF8_BOM = [0xef, 0xbb, 0xbf];

/**
 * Streams a file line by line in ripgrep's buffer steps. Returns true when the search stopped at
 * a line longer than MAX_LINE_BYTES.
 */
async function searchLines(handle: FileHandle, size: number, rel: string, engine: Engine, q: GrepQuery, out: GrepCollector, signal: AbortSignal): Promise<boolean> {
  const sink = new LineSink(rel, q, out);
  let buf = Buffer.allocUnsafe(RG_BUFFER_BYTES);
  let end = 0; // bytes in buf
  let lineNo = 0;
  let eof = false;
  let tooLong = false;
  let binary = false;

  // Reads as ripgrep issues them, served from one up-front read of the file's head (one system
  // call for most files); the file's size at open marks its end.
  const pre = Buffer.allocUnsafe(Math.min(size, RG_BUFFER_BYTES + 3));
  let preLen = 0;
  while (preLen < pre.length) {
    const { bytesRead } = await handle.read(pre, preLen, pre.length - preLen, preLen);
    if (bytesRead === 0) break;
    preLen += bytesRead;
  }
  let filePos = preLen;
  let prePos = 0;
  const read = async (into: Buffer, at: number, len: number): Promise<number> => {
    if (prePos < preLen) {
      const n = Math.min(len, preLen - prePos);
      pre.copy(into, at, prePos, prePos + n);
      prePos += n;
      return n;
    }
    if (filePos >= size) return 0;
    const { bytesRead } = await handle.read(into, at, len, filePos);
    filePos += bytesRead;
    return bytesRead;
  };

  // ripgrep's BOM sniff: the first read takes up to 3 bytes; a UTF-8 BOM is dropped.
  const head = Buffer.alloc(3);
  let headLen = 0;
  while (headLen < 3) {
    const n = await read(head, headLen, 3 - headLen);
    if (n === 0) break;
    headLen += n;
  }
  const bom = headLen === 3 && UTF8_BOM.every((b, i) => head[i] === b);
  let pending: Buffer | null = bom || headLen === 0 ? null : head.subarray(0, headLen);

  /** One fill: true when complete lines are ready in buf[0, lastTerm); false at EOF or binary. */
  const fill = async (): Promise<{ lastTerm: number } | null> => {
    for (;;) {
      if (end === buf.length) {
        if (buf.length >= MAX_LINE_BYTES) {
          tooLong = true;
          return null;
        }
        const bigger = Buffer.allocUnsafe(buf.length * 2);
        buf.copy(bigger, 0, 0, end);
        buf = bigger;
      }
      let n: number;
      if (pending) {
        pending.copy(buf, end);
        n = pending.length;
        pending = null;
      } else {
        n = await read(buf, end, buf.length - end);
      }
      if (n === 0) {
        eof = true;
        return end > 0 ? { lastTerm: end } : null;
      }
      const fresh = buf.subarray(end, end + n);
      end += n;
      if (fresh.includes(0)) {
        binary = true; // this fill is not searched, the file ends here
        return null;
      }
      const nl = fresh.lastIndexOf(10);
      if (nl >= 0) return { lastTerm: end - n + nl + 1 };
    }
  };

  for (;;) {
    if (signal.aborted) break;
    const ready = await fill();
    if (!ready) break;
    const chunk = buf.toString('utf8', 0, ready.lastTerm);
    const lines = chunk.split('\n');
    if (chunk.endsWith('\n')) lines.pop();
    const maybe = engine.prefilter === null || engine.prefilter.test(chunk);
    let stop = false;
    for (let k = 0; k < lines.length; k++) {
      if (!maybe && !sink.wantsContext) {
        lineNo += lines.length - k; // nothing in the rest of this chunk can matter
        break;
      }
      lineNo++;
      const text = lines[k]!;
      if (!sink.line(lineNo, text, maybe && engine.re.test(text))) {
        stop = true;
        break;
      }
    }
    if (stop) break;
    // Roll the partial last line to the front.
    buf.copy(buf, 0, ready.lastTerm, end);
    end -= ready.lastTerm;
    if (eof) break;
  }
  sink.finish(binary);
  return tooLong;
}

/** Multiline: the whole file as one text, matches may span lines. */
async function searchWhole(handle: FileHandle, size: number, rel: string, engine: Engine, q: GrepQuery, out: GrepCollector): Promise<void> {
  const data = Buffer.allocUnsafe(size);
  let filled = 0;
  while (filled < size) {
    const { bytesRead } = await handle.read(data, filled, size - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  const bytes = data.subarray(0, filled);
  const from = bytes.length >= 3 && UTF8_BOM.every((b, i) => bytes[i] === b) ? 3 : 0;
  if (bytes.subarray(from, from + RG_BUFFER_BYTES).includes(0)) return; // binary
  const text = bytes.toString('utf8', from);
  const sink = new LineSink(rel, q, out);

  // Line starts: line k (1-based) starts at starts[k - 1].
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  const lineCount = text.length === 0 ? 0 : text.endsWith('\n') ? starts.length - 1 : starts.length;
  const lineOf = (pos: number): number => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
  const lineText = (no: number): string => {
    const s = starts[no - 1]!;
    const e = no < starts.length ? starts[no]! - 1 : text.length;
    return text.slice(s, e);
  };

  const matched: number[] = [];
  let lastMarked = 0;
  const global = new RegExp(engine.re.source, `${engine.re.flags}g`);
  for (const m of text.matchAll(global)) {
    const s = m.index;
    if (s >= text.length && lineCount < starts.length) continue; // the empty "line" after the last newline
    const e = s + m[0].length;
    const first = lineOf(s);
    const last = e > s ? lineOf(e - 1) : first;
    for (let k = Math.max(first, lastMarked + 1); k <= last; k++) matched.push(k);
    lastMarked = Math.max(lastMarked, last);
    if (q.mode === 'files_with_matches') break;
  }

  if (q.mode === 'content' && (q.before > 0 || q.after > 0)) {
    // Every line through the sink, so context is worked out exactly as when streaming.
    let next = 0;
    for (let no = 1; no <= lineCount; no++) {
      const isMatch = matched[next] === no;
      if (isMatch) next++;
      sink.line(no, lineText(no), isMatch);
    }
  } else {
    for (const no of matched) if (!sink.line(no, q.mode === 'content' ? lineText(no) : '', true)) break;
  }
  sink.finish();
}
