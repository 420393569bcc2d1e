// One session's checkpoints: the object store, the record log and the rewind journal in
// dataDir/checkpoints/<session>/, and the live parts that make a checkpoint cheap (the last scan,
// the stat cache, the inotify tracker). Everything that reads or changes the workspace's recorded
// state runs one at a time (`serial`), so a checkpoint, a diff of `current` and a rewind never
// interleave. The owner of a session (the replica running it) is the only writer; a reader
// elsewhere opens the directory read-only (CheckpointReader).
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Clock, IdFactory } from '../ids.js';
import { changesBetween, changesCounted, unifiedDiff, type FileChange } from './changes.js';
import {
  appendLog,
  forgetLog,
  readJournal,
  readLog,
  removeJournal,
  writeJournal,
  type CheckpointReason,
  type CheckpointRecord,
  type Manifest,
  type RewindJournal,
} from './log.js';
import { applyDelta, deltaJson, fullJson, isDelta, parseManifest } from './manifest.js';
import { ObjectStore } from './objects.js';
import { applyRestore, planRestore, type RestorePlan } from './restore.js';
import { ScanCache, scanTree, type Entry, type Scan } from './scan.js';
import { DirtyTracker } from './watch.js';

export type { CheckpointRecord, CheckpointReason } from './log.js';

/** A call's tool.completed lists at most this many changed paths (all of them: GET …/changes). */
export const CALL_CHANGES_SHOWN = 1_000;

export interface CheckpointLimits {
  /** A larger file is not captured (said in the checkpoint). */
  maxFileBytes: number;
  /** Entries past this count are not captured. */
  maxEntries: number;
  /** The session's store may hold at most this many bytes; content past it is not captured. */
  maxSessionBytes: number;
}

/** A budget the session shares with others (its tenant's); null from `remaining`: no limit. */
export interface SharedBudget {
  remaining(): Promise<{ bytes: number; limit: number } | null>;
  /** The session's store grew by this many bytes. */
  grew(bytes: number): void;
}

export interface Conflict {
  path: string;
  reason: string;
}

export interface RewindPlan {
  target: CheckpointRecord;
  restored: string[];
  deleted: string[];
  conflicts: Conflict[];
  /** Paths the target could not capture: left as they are. */
  skipped: string[];
}

/** Reads a session's checkpoints (its records, manifests and contents): the writer and readers alike. */
export class CheckpointReader {
  private readonly manifests = new Map<string, Manifest>();

  protected constructor(
    readonly dir: string,
    protected readonly objects: ObjectStore,
    protected records: CheckpointRecord[],
  ) {}

  /** Opens `dir` to read; null when the session never made a checkpoint. */
  static async open(dir: string): Promise<CheckpointReader | null> {
    const records = await readLog(dir);
    if (records.length === 0) return null;
    return new CheckpointReader(dir, await ObjectStore.open(path.join(dir, 'objects'), { readOnly: true }), records);
  }

  list(): readonly CheckpointRecord[] {
    return this.records;
  }

  get(id: string): CheckpointRecord | undefined {
    return this.records.find((r) => r.id === id);
  }

  /**
   * A checkpoint id, or a turn id: `before` the turn (its first checkpoint) or `after` it (its
   * last one, or the turn's first when it changed nothing since). Undefined: neither.
   */
  resolve(ref: string, side: 'before' | 'after'): CheckpointRecord | undefined {
    const byId = this.get(ref);
    if (byId) return byId;
    const ofTurn = this.records.filter((r) => r.turn_id === ref);
    return side === 'before' ? ofTurn[0] : ofTurn.at(-1);
  }

  async manifest(record: CheckpointRecord): Promise<Manifest> {
    return this.manifestNamed(record.manifest, false);
  }

  /** A manifest by name, a delta applied to its base; `fullOnly`: a delta is refused (a base must be full). */
  private async manifestNamed(name: string, fullOnly: boolean): Promise<Manifest> {
    let m = this.manifests.get(name);
    if (!m) {
      const stored = parseManifest(await this.objects.get(name));
      if (isDelta(stored) && fullOnly) throw new Error(`checkpoint manifest ${name} is a delta where a full manifest is wanted`);
      m = isDelta(stored) ? applyDelta(await this.manifestNamed(stored.base, true), stored) : stored;
      if (this.manifests.size >= 8) this.manifests.delete(this.manifests.keys().next().value!);
      this.manifests.set(name, m);
    }
    return m;
  }

  content = (sha256: string): Promise<Buffer> => this.objects.get(sha256);

  async changes(from: Entry[], to: Entry[]): Promise<FileChange[]> {
    return changesBetween(from, to, this.content);
  }

  async diff(from: Entry[], to: Entry[]): Promise<string> {
    return unifiedDiff(from, to, this.content);
  }

  async close(): Promise<void> {
    await this.objects.close();
  }
}

export interface OpenOptions {
  dir: string;
  /** The workspace's real path. */
  root: string;
  limits: CheckpointLimits;
  /** The tenant's budget, shared by its sessions (absent: only the session's own). */
  shared?: SharedBudget;
  newId: IdFactory;
  clock: Clock;
}

/** What a rewind journal left behind at start-up became. */
export interface Recovered {
  journal: RewindJournal;
  after: CheckpointRecord | null;
  error?: string;
}

export class SessionCheckpoints extends CheckpointReader {
  private readonly cache = new ScanCache();
  private last: Scan | undefined;
  /** The manifest name of `last`, when it was recorded. */
  private lastManifest: string | undefined;
  /** The last full manifest written, which the next ones may be deltas of. */
  private base: { name: string; entries: readonly Entry[] } | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private used = 0;
  /** The budget that bound the last scan, as its warning names it. */
  private binding = '';
  /** What the checkpoint before a call saw, by tool_use_id, until the one after it. */
  private readonly seenBefore = new Map<string, Entry[]>();
  private closed = false;

  private constructor(
    private readonly o: OpenOptions,
    objects: ObjectStore,
    records: CheckpointRecord[],
    private readonly tracker: DirtyTracker,
  ) {
    super(o.dir, objects, records);
  }

  /** Opens (or makes) the session's checkpoint directory; a rewind a crash interrupted is finished first. */
  static async openWriter(o: OpenOptions): Promise<{ checkpoints: SessionCheckpoints; recovered: Recovered | null }> {
    await fs.mkdir(path.join(o.dir, 'barrier'), { recursive: true, mode: 0o700 });
    const objects = await ObjectStore.open(path.join(o.dir, 'objects'));
    const cp = new SessionCheckpoints(o, objects, await readLog(o.dir), new DirtyTracker(path.join(o.dir, 'barrier')));
    cp.used = await objects.bytesOnDisk();
    let recovered: Recovered | null = null;
    let journal: RewindJournal | null = null;
    try {
      journal = await readJournal(o.dir);
    } catch (err) {
      await removeJournal(o.dir);
      recovered = { journal: { to: '', before: '', plan: { write: [], remove: [], mkdir: [], rmdir: [] }, by: null }, after: null, error: (err as Error).message };
    }
    if (journal) {
      // Every step of a plan is "make this path be that": applying it again converges.
      try {
        await applyRestore(o.root, journal.plan, cp.content);
        const after = await cp.record({ reason: 'after_rewind', turnId: null, sync: true });
        await removeJournal(o.dir);
        recovered = { journal, after };
      } catch (err) {
        recovered = { journal, after: null, error: (err as Error).message };
      }
    }
    return { checkpoints: cp, recovered };
  }

  /** Bytes the session's store holds. */
  get bytesUsed(): number {
    return this.used;
  }

  /** Runs `fn` after everything queued before it. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** The workspace as it is now (a scan; incremental when the tracker allows). */
  private async scanNow(): Promise<Scan> {
    await this.tracker.settle();
    if (this.last && this.tracker.quiet) return this.last;
    const own = Math.max(0, this.o.limits.maxSessionBytes - this.used);
    const shared = await this.o.shared?.remaining();
    const budget = { remaining: shared ? Math.min(own, shared.bytes) : own };
    const binding =
      shared && shared.bytes < own
        ? `the tenant's checkpoint budget of ${shared.limit} bytes (max_checkpoint_bytes)`
        : `the session's checkpoint budget of ${this.o.limits.maxSessionBytes} bytes`;
    const { inc, finish } = this.tracker.begin(this.last);
    const scan = await scanTree(this.o.root, this.objects, this.cache, { maxFileBytes: this.o.limits.maxFileBytes, maxEntries: this.o.limits.maxEntries, budget }, inc);
    finish();
    this.used += scan.added;
    this.o.shared?.grew(scan.added);
    if (scan !== this.last) this.binding = binding;
    if (scan !== this.last) this.lastManifest = undefined;
    this.last = scan;
    return scan;
  }

  /** Scans and records a checkpoint (not queued: the caller is inside `serial`). */
  private async record(p: { reason: CheckpointReason; turnId: string | null; toolUseId?: string; sync?: boolean }): Promise<CheckpointRecord> {
    const usedBefore = this.used;
    const scan = await this.scanNow();
    if (!this.lastManifest) {
      const delta = this.base ? deltaJson(this.base.name, this.base.entries, scan) : null;
      const put = await this.objects.put(Buffer.from(delta ?? fullJson(scan)));
      this.used += put.added;
      this.o.shared?.grew(put.added);
      this.lastManifest = put.sha256;
      if (delta === null) this.base = { name: put.sha256, entries: scan.entries };
    }
    await this.objects.flush();
    const overBudget = scan.notCaptured.filter((n) => n.reason.startsWith('over the checkpoint disk budget')).length;
    const warnings: string[] = [];
    if (overBudget > 0) warnings.push(`${overBudget} file(s) over ${this.binding} were not captured: changes to them cannot be undone`);
    const record: CheckpointRecord = {
      id: this.o.newId('ckpt'),
      seq: (this.records.at(-1)?.seq ?? 0) + 1,
      turn_id: p.turnId,
      ...(p.toolUseId ? { tool_use_id: p.toolUseId } : {}),
      reason: p.reason,
      created_at: this.o.clock().toISOString(),
      files: scan.entries.filter((e) => e.kind !== 'dir').length,
      bytes: scan.bytes,
      added_bytes: this.used - usedBefore,
      manifest: this.lastManifest,
      not_captured: scan.notCaptured.length,
      complete: scan.notCaptured.every((n) => n.reason.includes('never captured')),
      warnings,
    };
    await appendLog(this.o.dir, record, p.sync ?? false);
    this.records.push(record);
    return record;
  }

  /** Records a checkpoint now (after whatever is queued). */
  take(p: { reason: CheckpointReason; turnId: string | null; toolUseId?: string }): Promise<CheckpointRecord> {
    if (this.closed) return Promise.reject(new Error('the session\'s checkpoints are closed'));
    return this.serial(() => this.record(p));
  }

  /**
   * As `take`, but when the workspace is as the last checkpoint recorded it, none is made (null):
   * the end of a turn that left nothing behind its last call adds no state, and costs no record.
   */
  takeIfChanged(p: { reason: CheckpointReason; turnId: string | null }): Promise<CheckpointRecord | null> {
    if (this.closed) return Promise.reject(new Error('the session\'s checkpoints are closed'));
    return this.serial(async () => {
      const last = this.last;
      const recorded = last !== undefined && this.lastManifest !== undefined && this.records.at(-1)?.manifest === this.lastManifest;
      if (recorded && (await this.scanNow()) === last) return null;
      return this.record(p);
    });
  }

  /** The checkpoint before a call that may change the workspace. */
  beforeCall(turnId: string, toolUseId: string): Promise<CheckpointRecord> {
    return this.serial(async () => {
      const r = await this.record({ reason: 'before_call', turnId, toolUseId });
      this.seenBefore.set(toolUseId, this.last!.entries);
      return r;
    });
  }

  /**
   * The checkpoint after that call, and what the call changed: the first CALL_CHANGES_SHOWN
   * paths, and how many there are (null: its checkpoint before was not made).
   */
  afterCall(turnId: string, toolUseId: string): Promise<{ record: CheckpointRecord; files: FileChange[]; total: number } | null> {
    return this.serial(async () => {
      const before = this.seenBefore.get(toolUseId);
      this.seenBefore.delete(toolUseId);
      // Synced: the call's tool.completed names this record and the one before the call.
      const record = await this.record({ reason: 'after_call', turnId, toolUseId, sync: true });
      if (!before) return null;
      const after = this.last!.entries;
      return { record, ...(await changesCounted(before, after, this.content, CALL_CHANGES_SHOWN)) };
    });
  }

  /** The entries of a checkpoint, or of the workspace now. */
  entriesOf(ref: CheckpointRecord | 'current'): Promise<Entry[]> {
    if (ref === 'current') return this.serial(async () => (await this.scanNow()).entries);
    return this.manifest(ref).then((m) => m.entries);
  }

  /**
   * What a rewind to `target` would do now: the paths it writes and removes, and the conflicts —
   * paths it would change that differ from the session's last checkpoint (something outside the
   * session changed them since). Not queued: the caller is inside `serial` or only looks.
   */
  private async plan(target: CheckpointRecord, selected: (p: string) => boolean, current: Scan): Promise<{ view: RewindPlan; plan: RestorePlan }> {
    const wanted = await this.manifest(target);
    // Paths the target did not capture are left alone, whatever they hold now.
    const uncaptured = new Set(wanted.notCaptured.map((n) => n.path));
    const under = (p: string) => [...uncaptured].some((u) => p === u || p.startsWith(`${u}/`));
    const pick = (p: string) => selected(p) && !under(p);
    const plan = planRestore(wanted.entries, current.entries, pick);
    const lastRecord = this.records.at(-1);
    const seen = lastRecord ? new Map((await this.manifest(lastRecord)).entries.map((e) => [e.path, e])) : new Map<string, Entry>();
    const now = new Map(current.entries.map((e) => [e.path, e]));
    const conflicts: Conflict[] = [];
    const touched = [...plan.write.map((e) => e.path), ...plan.remove, ...plan.rmdir];
    for (const p of touched) {
      const a = seen.get(p);
      const b = now.get(p);
      if (!sameEntry(a, b)) {
        conflicts.push({ path: p, reason: !a ? 'made since the session\'s last checkpoint, not by the session' : !b ? 'removed since the session\'s last checkpoint, not by the session' : 'changed since the session\'s last checkpoint, not by the session' });
      }
    }
    return {
      plan,
      view: {
        target,
        restored: [...plan.mkdir.map((d) => d.path), ...plan.write.map((e) => e.path)].sort(),
        deleted: [...plan.remove, ...plan.rmdir].sort(),
        conflicts,
        skipped: [...uncaptured].filter(selected).sort(),
      },
    };
  }

  /** A dry run: what a rewind would do now. */
  preview(target: CheckpointRecord, selected: (p: string) => boolean): Promise<RewindPlan> {
    return this.serial(async () => (await this.plan(target, selected, await this.scanNow())).view);
  }

  /**
   * Rewinds: records the workspace first (the checkpoint that undoes this rewind), refuses when
   * there are conflicts and not `force`, journals the plan, applies it, records the result.
   * `check` runs inside the queue, just before the workspace is touched (a turn started since: 409).
   */
  rewind(
    target: CheckpointRecord,
    selected: (p: string) => boolean,
    o: { force: boolean; by: string | null; check: () => void },
  ): Promise<{ view: RewindPlan; before: CheckpointRecord; after: CheckpointRecord | null }> {
    return this.serial(async () => {
      o.check();
      const current = await this.scanNow();
      const { view, plan } = await this.plan(target, selected, current);
      if (view.conflicts.length > 0 && !o.force) throw new RewindConflict(view);
      const before = await this.record({ reason: 'before_rewind', turnId: null, sync: true });
      o.check();
      await writeJournal(this.o.dir, { to: target.id, before: before.id, plan, by: o.by });
      await applyRestore(this.o.root, plan, this.content);
      const after = await this.record({ reason: 'after_rewind', turnId: null, sync: true });
      await removeJournal(this.o.dir);
      return { view, before, after };
    });
  }

  /** Resolves once everything queued so far is done (a turn's last checkpoint included). */
  idle(): Promise<void> {
    return this.serial(async () => undefined);
  }

  /** Stops watching; what is queued finishes first. */
  override async close(): Promise<void> {
    this.closed = true;
    await this.queue;
    this.tracker.close();
    forgetLog(this.o.dir);
    await super.close();
  }
}

export class RewindConflict extends Error {
  constructor(readonly view: RewindPlan) {
    super(`${view.conflicts.length} path(s) changed since the session's last checkpoint by something other than the session`);
  }
}

function sameEntry(a: Entry | undefined, b: Entry | undefined): boolean {
  if (!a || !b) return a === b;
  if (a.kind !== b.kind) return false;
  if (a.kind === 'file') return a.sha256 === (b as typeof a).sha256 && a.mode === (b as typeof a).mode;
  if (a.kind === 'link') return a.target === (b as typeof a).target;
  return true;
}
