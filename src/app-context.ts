// What the composition root hands to the HTTP edge: the services and the config.
import type { Config } from './config.js';
import type { EventLog } from './events/log.js';
import type { Readiness } from './contract/schemas.js';
import type { SessionService } from './session/session.js';

export interface AppContext {
  config: Config;
  sessions: SessionService;
  events: EventLog;
  readiness(): Promise<Readiness>;
  /** Runs the spill retention sweep now (it also runs on a timer). */
  sweepOutputs(): Promise<{ expired: number; orphanDirs: number }>;
  /** Runs the session retention sweep now (it also runs on a timer). */
  sweepSessions(): Promise<number>;
  /** Aborted when the server begins to shut down: SSE streams end with a `stream.end` event. */
  shutdown: AbortSignal;
}
