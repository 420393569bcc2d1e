// A session's checkpoints as its runtime holds them: opened (finishing a rewind a crash
// interrupted, and saying so), and where they live: dataDir/checkpoints/<session>/, the server's
// own tree, which no sandboxed process of any session can see.
import path from 'node:path';
import type { Config } from '../config.js';
import type { Clock, IdFactory } from '../ids.js';
import { SessionCheckpoints, type SharedBudget } from '../checkpoints/session.js';
import type { SessionRecord } from '../store/store.js';
import type { EventGate } from './event-gate.js';
import type { Logger } from 'pino';

export function checkpointDir(dataDir: string, sessionId: string): string {
  return path.join(dataDir, 'checkpoints', sessionId);
}

export async function openCheckpoints(
  record: SessionRecord,
  root: string,
  deps: { config: Config; newId: IdFactory; clock: Clock; logger?: Logger; checkpointBudgets?: { for(tenant: string): SharedBudget } },
  gate: EventGate,
): Promise<SessionCheckpoints | null> {
  const s = record.session;
  const { config } = deps;
  try {
    const { checkpoints, recovered } = await SessionCheckpoints.openWriter({
      dir: checkpointDir(config.dataDir, s.id),
      root,
      limits: { maxFileBytes: config.checkpoints.maxFileBytes, maxEntries: config.checkpoints.maxEntries, maxSessionBytes: config.checkpoints.maxSessionBytes },
      ...(deps.checkpointBudgets ? { shared: deps.checkpointBudgets.for(s.tenant) } : {}),
      newId: deps.newId,
      clock: deps.clock,
    });
    if (recovered?.error) deps.logger?.error({ session_id: s.id, err: recovered.error }, 'an interrupted rewind could not be finished');
    else if (recovered) {
      const { journal, after } = recovered;
      gate.emit({
        type: 'workspace.rewound',
        to: journal.to,
        checkpoint_id: journal.before,
        after_checkpoint_id: after?.id ?? null,
        restored: [...journal.plan.mkdir.map((d) => d.path), ...journal.plan.write.map((e) => e.path)].sort(),
        deleted: [...journal.plan.remove, ...journal.plan.rmdir].sort(),
        forced: [],
        paths: null,
        dropped_turns: [],
        by: journal.by,
        recovered: true,
      });
    }
    return checkpoints;
  } catch (err) {
    deps.logger?.error({ err, session_id: s.id }, 'the session\'s checkpoints could not be opened; it runs without them');
    return null;
  }
}
