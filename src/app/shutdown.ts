// Graceful shutdown. No turn starts any more; running calls may finish within the grace time,
// then turns still running are stopped (`interrupted`). With a durable store sessions stay
// active and a turn waiting only on people stays paused (`awaiting_permission`/`awaiting_input`): the next process
// resumes it. SessionEnd hooks fire (SessionStart fires again, reason "resume", on restart).
// With the in-memory store nothing survives, so every session is closed.
import { PAUSED_STATUSES } from '../contract/schemas.js';
import { stopRuntimeParts } from '../session/runtime.js';
import { TurnStop } from '../session/turn.js';
import type { Parts } from './parts.js';
import type { Scope } from './scope.js';
import type { SessionUseCases } from './sessions.js';

export async function shutdownSessions(parts: Parts, sessions: SessionUseCases, scope: Scope, graceMs: number): Promise<void> {
  parts.stopping = true;
  if (!parts.deps.store.durable) return sessions.closeAll(scope, 'server shutdown');
  const runners = parts.runtimes.all().flatMap((rt) => (rt.activeTurn ? [rt.activeTurn] : []));
  const deadline = Date.now() + graceMs;
  await Promise.all(runners.map((r) => r.waitQuiet(deadline - Date.now())));
  for (const r of runners) {
    if (r.isFinal() || (r.runningCalls === 0 && PAUSED_STATUSES.has(r.turn.status))) continue;
    r.stop(new TurnStop('the server shut down while the call was running', 'shutdown'), 'interrupted', {
      code: 'server_shutdown',
      message: 'The server shut down while the turn was running; unfinished calls got error results.',
    });
  }
  // Requests still pending stay pending in the store; nothing in this process waits on them.
  parts.broker.detachAll();
  for (const rt of parts.runtimes.all()) {
    await stopRuntimeParts(rt);
    await parts.audit.lifecycle('SessionEnd', rt.settings.session, { reason: 'server shutdown' }, rt.hooks);
    await rt.sandbox.close();
    parts.runtimes.delete(rt.id);
  }
}
