// Retention: sessions closed longer than NORMA_SESSION_RETENTION_S go with everything stored
// for them; sandbox state a crash left behind goes at start-up.
import fs from 'node:fs/promises';
import path from 'node:path';
import { memoryDir } from '../session/data-dirs.js';
import type { Parts } from './parts.js';
import type { Scope } from './scope.js';
import { utcDay } from '../store/spend.js';

/** Days of tenants' spending kept (for the operator to read in the database). */
const SPEND_KEPT_DAYS = 40;

export class RetentionUseCases {
  constructor(private readonly parts: Parts) {}

  /**
   * Removes sessions closed longer than NORMA_SESSION_RETENTION_S ago: their records, events,
   * decisions, spill files, task logs and private memory store, and their workspace when the server made it (and it
   * lies inside the workspace root). Open sessions are never touched.
   */
  async sweepClosedSessions(_scope: Scope): Promise<number> {
    const { config, store, outputs, clock } = this.parts.deps;
    const before = new Date(clock().getTime() - config.sessionRetentionMs).toISOString();
    let removed = 0;
    for (;;) {
      const batch = store.closedSessionsBefore(before, 50);
      if (batch.length === 0) return removed;
      for (const { session } of batch) {
        await outputs.removeSession(session.id);
        await fs.rm(path.join(config.dataDir, 'tasks', session.id), { recursive: true, force: true });
        if (session.workspace_owned) {
          const root = await this.parts.workspaceRoot();
          const dir = path.resolve(session.workspace);
          // Nothing is deleted while a live session refers to it (its workspace is this one,
          // inside it or around it).
          const inUse = store.activeSessions().some((a) => overlaps(path.resolve(a.session.workspace), dir));
          if (!inUse && dir.startsWith(root + path.sep) && path.dirname(dir) === root) await fs.rm(dir, { recursive: true, force: true });
        }
        await fs.rm(path.join(config.dataDir, 'sandbox', session.id), { recursive: true, force: true });
        await fs.rm(path.join(config.dataDir, 'checkpoints', session.id), { recursive: true, force: true });
        // A named memory store outlives its sessions; a session's private one goes with it.
        if (!session.memory_store) await fs.rm(memoryDir(config.dataDir, session), { recursive: true, force: true });
        store.deleteSession(session.id);
        removed++;
      }
    }
  }

  /** Sandbox state (home, /tmp, proxy socket) of sessions that are not active: a crash left it. */
  /** Tenants' spending of days long past (a day's limit reads only its own day). */
  sweepSpend(_scope: Scope): number {
    return this.parts.runner.spend.sweep(utcDay(new Date(this.parts.deps.clock().getTime() - SPEND_KEPT_DAYS * 86_400_000)));
  }

  async sweepSandboxState(_scope: Scope): Promise<number> {
    const dir = path.join(this.parts.deps.config.dataDir, 'sandbox');
    let names: string[] = [];
    try {
      names = await fs.readdir(dir);
    } catch {
      return 0;
    }
    let removed = 0;
    for (const name of names) {
      if (!name.startsWith('ses_') || this.parts.runtimes.has(name)) continue;
      await fs.rm(path.join(dir, name), { recursive: true, force: true });
      removed++;
    }
    return removed;
  }
}

/** Is one path the other, or inside it? */
function overlaps(a: string, b: string): boolean {
  return a === b || a.startsWith(b + path.sep) || b.startsWith(a + path.sep);
}
