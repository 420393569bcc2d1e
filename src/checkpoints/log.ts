// A session's checkpoint records, kept beside their objects (dataDir/checkpoints/<session>/):
// `log.jsonl`, one JSON line per checkpoint, appended after the objects it names were flushed, so
// a record never names content that is not on disk. A line a crash cut short (no newline, or not
// JSON) is not a record. The rewind journal lives here too (`rewind.json`): written and synced
// before a rewind touches the workspace, removed once the rewind is recorded; one left behind is a
// rewind a crash interrupted, finished at the next start (session.ts).
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Entry, NotCaptured } from './scan.js';
import type { RestorePlan } from './restore.js';

export type CheckpointReason = 'turn_start' | 'before_call' | 'after_call' | 'turn_end' | 'before_rewind' | 'after_rewind' | 'fork';

export interface CheckpointRecord {
  id: string;
  /** Its place in the session's list, from 1. */
  seq: number;
  turn_id: string | null;
  tool_use_id?: string;
  reason: CheckpointReason;
  created_at: string;
  /** Files and links it holds. */
  files: number;
  /** Bytes of the files it holds, as the workspace had them. */
  bytes: number;
  /** Bytes this checkpoint added to the session's store. */
  added_bytes: number;
  /** The manifest's content name in the object store. */
  manifest: string;
  /** Entries it did not capture (each with its reason in the manifest). */
  not_captured: number;
  /** False: some of the workspace could not be captured (over the budget, unreadable); a rewind to it leaves those paths alone. */
  complete: boolean;
  warnings: string[];
}

export interface Manifest {
  entries: Entry[];
  notCaptured: NotCaptured[];
}

export interface RewindJournal {
  to: string;
  before: string;
  plan: RestorePlan;
  /** Who asked, for the record made when a restart finishes it. */
  by: string | null;
}

export const LOG = 'log.jsonl';
export const JOURNAL = 'rewind.json';
const MAX_LINE = 64 * 1024;

/** The records in `dir`, oldest first (none when there is no log). */
export async function readLog(dir: string): Promise<CheckpointRecord[]> {
  let text: string;
  try {
    text = await fs.readFile(path.join(dir, LOG), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const out: CheckpointRecord[] = [];
  const lines = text.split('\n');
  // The last piece has no newline: a line being written, or one a crash cut short.
  lines.pop();
  for (const line of lines) {
    if (line.length === 0 || line.length > MAX_LINE) continue;
    try {
      const r = JSON.parse(line) as CheckpointRecord;
      if (typeof r.id === 'string' && typeof r.manifest === 'string') out.push(r);
    } catch {
      // Not a record (damaged): the ones around it stand.
    }
  }
  return out;
}

/** Logs whose last line this process wrote whole, with their size then: the next append needs no look at the end. */
const whole = new Map<string, number>();

/** This process is done writing the log in `dir` (its session's checkpoints closed). */
export function forgetLog(dir: string): void {
  whole.delete(path.join(dir, LOG));
}

/**
 * Appends a record; `sync`: and makes the log durable, this record and every one before it. The
 * open, the look at the end and the write are synchronous calls (a few microseconds on a local
 * file, against a trip through the thread pool each); the sync, which waits for the disk, is not.
 */
export async function appendLog(dir: string, record: CheckpointRecord, sync = false): Promise<void> {
  const file = path.join(dir, LOG);
  const fd = fsSync.openSync(file, 'a+', 0o600);
  let size = whole.get(file) ?? -1;
  try {
    // A line a crash cut short is ended first, so this record is a line of its own.
    let torn = false;
    if (size < 0) {
      size = fsSync.fstatSync(fd).size;
      if (size > 0) {
        const last = Buffer.alloc(1);
        fsSync.readSync(fd, last, 0, 1, size - 1);
        torn = last[0] !== 0x0a;
      }
    }
    whole.delete(file);
    try {
      // Synced only when asked: before an event names a record (session.ts). Unsynced records
      // survive the process's crash; an operating-system crash may lose the last ones, never
      // leave one without its content (the packs it names were synced before it was written).
      const line = Buffer.from(`${torn ? '\n' : ''}${JSON.stringify(record)}\n`);
      let written = 0;
      while (written < line.length) written += fsSync.writeSync(fd, line, written, line.length - written);
      if (sync) await new Promise<void>((resolve, reject) => fsSync.fdatasync(fd, (err) => (err ? reject(err) : resolve())));
      whole.set(file, size + line.length);
    } catch (err) {
      // A line cut short (a full disk) is taken back, so the next one starts a line of its own.
      try {
        fsSync.ftruncateSync(fd, size);
      } catch {
        // Nothing more to take back.
      }
      throw err;
    }
  } finally {
    fsSync.closeSync(fd);
  }
}

export async function writeJournal(dir: string, journal: RewindJournal): Promise<void> {
  const tmp = path.join(dir, `${JOURNAL}.tmp`);
  const h = await fs.open(tmp, 'w', 0o600);
  try {
    await h.writeFile(JSON.stringify(journal));
    await h.sync();
  } finally {
    await h.close();
  }
  await fs.rename(tmp, path.join(dir, JOURNAL));
}

export async function readJournal(dir: string): Promise<RewindJournal | null> {
  try {
    return JSON.parse(await fs.readFile(path.join(dir, JOURNAL), 'utf8')) as RewindJournal;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    // Not readable whole: written by the rename above or not at all, so this is damage; the
    // rewind it recorded is not replayed (the workspace is as that rewind left it, each file
    // whole), and what happened is said.
    throw new Error(`the rewind journal is damaged: ${(err as Error).message}`);
  }
}

export async function removeJournal(dir: string): Promise<void> {
  await fs.rm(path.join(dir, JOURNAL), { force: true });
}
