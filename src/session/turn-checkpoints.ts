// The checkpoints a turn takes: one at its start (not again for a turn resumed after a restart),
// and one before and after each call that may change the workspace. A checkpoint that cannot be
// made (a full disk) never fails the call: its changes say it cannot be undone, and why.
import type { Logger } from 'pino';
import type { CallChanges } from '../contract/checkpoint.js';
import type { Turn } from '../contract/schemas.js';
import type { SessionCheckpoints } from '../checkpoints/session.js';
import type { PipelineEnv } from '../pipeline/exec-one.js';

/** The hooks around a call; what a call changed goes into `changes` by tool_use id. */
export function callCheckpoints(turn: Turn, logger: Logger, changes: Map<string, CallChanges>, cp: SessionCheckpoints): NonNullable<PipelineEnv['checkpoint']> {
  const before = new Map<string, { id: string | null; complete: boolean; warnings: string[] }>();
  const why = (err: unknown) => (err instanceof Error ? err.message : String(err));
  return {
    before: async (call) => {
      try {
        const r = await cp.beforeCall(turn.id, call.id);
        before.set(call.id, { id: r.id, complete: r.complete, warnings: r.warnings });
      } catch (err) {
        logger.warn({ err, session_id: turn.session_id, turn_id: turn.id, tool_use_id: call.id }, 'no checkpoint before the call');
        before.set(call.id, { id: null, complete: false, warnings: [`no checkpoint could be made before the call (${why(err)}): it cannot be undone`] });
      }
    },
    after: async (call) => {
      const b = before.get(call.id) ?? { id: null, complete: false, warnings: [] };
      before.delete(call.id);
      try {
        const a = await cp.afterCall(turn.id, call.id);
        changes.set(call.id, { checkpoint_id: b.id, undoable: b.id !== null && b.complete, files: a?.files ?? [], files_total: a?.total ?? 0, warnings: b.warnings });
      } catch (err) {
        changes.set(call.id, {
          checkpoint_id: b.id,
          undoable: b.id !== null && b.complete,
          files: [],
          files_total: 0,
          warnings: [...b.warnings, `what the call changed could not be recorded (${why(err)})`],
        });
      }
    },
  };
}

/** The turn's first checkpoint (not again for a turn resumed after a restart). */
export async function turnStartCheckpoint(turn: Turn, cp: SessionCheckpoints | null | undefined, logger: Logger): Promise<void> {
  if (!cp || cp.list().some((r) => r.turn_id === turn.id)) return;
  try {
    await cp.take({ reason: 'turn_start', turnId: turn.id });
  } catch (err) {
    logger.warn({ err, session_id: turn.session_id, turn_id: turn.id }, 'no checkpoint at the start of the turn');
  }
}
