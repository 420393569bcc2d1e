// Waiting for a turn that runs on another replica (replicas.ts), without asking its owner: the
// turn's events reach this node through the database's notifications (EventLog.wake), so the
// wait ends with the owner's latency plus that one hop. The turn's end carries the turn itself;
// a pause (a permission request, a question, a client-tool request, a resumed turn) is read back once its event came,
// since the turn's new status commits with that event. Should the owner die meanwhile, this node
// takes the session over like any request for it would, and waits for the turn here.
import type { NormaEvent } from '../contract/events.js';
import type { Turn } from '../contract/schemas.js';
import type { EventLog, Subscription } from '../events/log.js';
import type { LaterReads } from '../store/store.js';
import type { Application } from './owner.js';
import type { Scope } from './scope.js';

const ENDS: ReadonlySet<string> = new Set(['turn.completed', 'turn.failed', 'turn.cancelled', 'turn.interrupted']);
const PAUSES: ReadonlySet<string> = new Set(['permission.requested', 'question.asked', 'client_tool.requested', 'turn.resumed']);

/** How often the owner's liveness is looked at while waiting. */
const CHECK_MS = 500;

export interface ElsewhereWait {
  app: Application;
  events: EventLog;
  /** The store's reads that do not hold the server's thread, when it has them. */
  later?: LaterReads;
  /** This node runs the session now (it took it over). */
  runsHere(sessionId: string): boolean;
  /** Takes the session over when its owner is not alive. */
  takeOverIfDead(sessionId: string): Promise<void>;
}

/** Ended or paused for a person: every status but running. */
const settled = (t: Turn): boolean => t.status !== 'running';

function turnIdOf(e: NormaEvent): string | undefined {
  const data = e as unknown as { turn_id?: unknown; turn?: { id?: unknown } };
  if (typeof data.turn_id === 'string') return data.turn_id;
  return typeof data.turn?.id === 'string' ? data.turn.id : undefined;
}

/**
 * Reads of the turn: without holding the server's thread where the store allows (visibility as
 * the owner checks it: another tenant's session is 404); anything unexpected is read the plain
 * way, which answers with the same errors as GET.
 */
function reader(o: ElsewhereWait, scope: Scope, sessionId: string, turnId: string): { lastSeq(): Promise<number>; turn(): Promise<Turn> } {
  const later = o.later;
  const plain = async () => o.app.turns.get(scope, sessionId, turnId);
  if (!later) return { lastSeq: async () => o.events.lastSeq(sessionId), turn: plain };
  let visible = false;
  return {
    lastSeq: () => later.lastSeq(sessionId),
    turn: async () => {
      if (!visible) {
        const tenant = await later.tenantOf(sessionId);
        if (tenant === undefined || (scope.tenant !== null && scope.tenant !== tenant)) return plain();
        visible = true;
      }
      return (await later.getTurn(sessionId, turnId)) ?? plain();
    },
  };
}

/** Waits up to `seconds` for turn `turnId`, run by another node, to end or pause; answers it as it is then. */
export async function waitElsewhere(o: ElsewhereWait, scope: Scope, sessionId: string, turnId: string, seconds: number): Promise<Turn> {
  const until = Date.now() + seconds * 1000;
  const read = reader(o, scope, sessionId, turnId);
  // Read before the turn, so that an end committed after this read is among the events heard.
  const from = await read.lastSeq();
  const first = await read.turn();
  if (settled(first) || seconds <= 0) return first;
  return new Promise<Turn>((resolve, reject) => {
    let done = false;
    let sub: Subscription | undefined;
    let checking = false;
    const finish = (answer: () => Turn | Promise<Turn>): void => {
      if (done) return;
      done = true;
      sub?.close();
      clearInterval(check);
      clearTimeout(timer);
      Promise.resolve().then(answer).then(resolve, reject);
    };
    const readBack = (): void => {
      void read.turn().then(
        (t) => settled(t) && finish(() => t),
        (err: unknown) => finish(() => Promise.reject(err)),
      );
    };
    const heard = (e: NormaEvent): void => {
      if (done || turnIdOf(e) !== turnId) return;
      if (ENDS.has(e.type)) finish(() => structuredClone((e as unknown as { turn: Turn }).turn));
      else if (PAUSES.has(e.type)) readBack();
    };
    const check = setInterval(() => {
      if (checking || done) return;
      checking = true;
      void o
        .takeOverIfDead(sessionId)
        .catch(() => undefined)
        .then(() => {
          // Taken over here: the turn is waited for where it runs now.
          if (o.runsHere(sessionId)) finish(() => o.app.turns.wait(scope, sessionId, turnId, Math.max(0, (until - Date.now()) / 1000)));
        })
        .finally(() => (checking = false));
    }, CHECK_MS);
    check.unref();
    const timer = setTimeout(() => finish(() => read.turn()), Math.max(0, until - Date.now()));
    timer.unref();
    sub = o.events.listen(sessionId, from, heard);
    if (done) sub.close();
  });
}
