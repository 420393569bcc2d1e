// A tenant's checkpoint disk budget (its policy's max_checkpoint_bytes): what all its sessions'
// checkpoint stores hold together. Measured from disk — the packs under
// dataDir/checkpoints/<session>/ of every session the store knows for the tenant, open or closed
// and not yet removed — and kept current between measurements by what this server's own sessions
// add. Measured again when older than REFRESH_MS, so what other replicas sharing the data
// directory added, and what retention removed, counts within that time. A tenant without the
// limit costs nothing: nothing is measured.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { SharedBudget } from '../checkpoints/session.js';
import type { Store } from '../store/store.js';
import type { TenantPolicies } from '../tenants/policy.js';
import { checkpointDir } from './checkpoints.js';

export const REFRESH_MS = 30_000;
const PAGE = 500;

interface Usage {
  bytes: number;
  /** When it was measured (ms). */
  at: number;
  measuring?: Promise<void>;
  /** Added by this server's sessions while a measurement ran (counted on top of it: never less than true). */
  during: number;
}

async function packBytes(dir: string): Promise<number> {
  const packs = path.join(dir, 'objects', 'packs');
  let names: string[];
  try {
    names = await fs.readdir(packs);
  } catch {
    return 0;
  }
  let n = 0;
  for (const name of names) {
    try {
      n += (await fs.lstat(path.join(packs, name))).size;
    } catch {
      // Removed meanwhile (retention): it holds nothing.
    }
  }
  return n;
}

export class TenantCheckpointBudgets {
  private readonly usage = new Map<string, Usage>();

  constructor(
    private readonly o: { dataDir: string; store: Store; tenants: TenantPolicies; now: () => number },
  ) {}

  /** The budget a session of `tenant` shares with the tenant's others. */
  for(tenant: string): SharedBudget {
    return {
      remaining: async () => {
        const limit = this.o.tenants.policyOf(tenant)?.source.max_checkpoint_bytes;
        if (limit === undefined || limit === null) return null;
        return { bytes: Math.max(0, limit - (await this.bytesOf(tenant))), limit };
      },
      grew: (bytes) => {
        const u = this.usage.get(tenant);
        if (!u) return;
        u.bytes += bytes;
        if (u.measuring) u.during += bytes;
      },
    };
  }

  private async bytesOf(tenant: string): Promise<number> {
    let u = this.usage.get(tenant);
    if (u && !u.measuring && this.o.now() - u.at < REFRESH_MS) return u.bytes;
    if (!u) {
      u = { bytes: 0, at: 0, during: 0 };
      this.usage.set(tenant, u);
    }
    const usage = u;
    usage.measuring ??= this.measure(tenant).then(
      (bytes) => {
        usage.bytes = bytes + usage.during;
        usage.at = this.o.now();
      },
      () => {
        // Unmeasurable now: keep what was counted, and try again next time.
      },
    ).finally(() => {
      usage.measuring = undefined;
      usage.during = 0;
    });
    await usage.measuring;
    return usage.bytes;
  }

  private async measure(tenant: string): Promise<number> {
    let total = 0;
    let after: { created_at: string; id: string } | undefined;
    for (;;) {
      const page = this.o.store.listSessions({ tenant, limit: PAGE, ...(after ? { after } : {}) });
      for (const r of page) total += await packBytes(checkpointDir(this.o.dataDir, r.session.id));
      if (page.length < PAGE) return total;
      const last = page.at(-1)!.session;
      after = { created_at: last.created_at, id: last.id };
    }
  }
}
