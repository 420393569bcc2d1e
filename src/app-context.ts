// What the composition root hands to the HTTP edge: the use cases, the event log and the config.
import type { Application } from './app/index.js';
import type { OwnerRouter } from './app/owner.js';
import type { Admission } from './app/admission.js';
import type { Config } from './config.js';
import type { EventLog } from './events/log.js';
import type { TenantStreams } from './events/tenant-stream.js';
import type { Readiness } from './contract/schemas.js';
import type { KeyScope } from './contract/tenant.js';

export interface AppContext {
  config: Config;
  app: Application;
  /** Runs a use case that needs the session's runtime where that runtime is (replicas: its owner). */
  owner: OwnerRouter;
  events: EventLog;
  /** Each tenant's one stream of its sessions' events (GET /v1/events). */
  tenantStreams: TenantStreams;
  /** Places for new turns: at most so many run at once here, the rest wait fairly, bounded (admission.ts). */
  admission: Admission;
  readiness(): Promise<Readiness>;
  /** Runs the spill retention sweep now (it also runs on a timer). */
  sweepOutputs(): Promise<{ expired: number; orphanDirs: number }>;
  /** Runs the session retention sweep now (it also runs on a timer). */
  sweepSessions(): Promise<number>;
  /** Aborted when the server begins to shut down: SSE streams end with a `stream.end` event. */
  shutdown: AbortSignal;
  /**
   * Whether the exact key of that id is still in force for that tenant with that access (not
   * removed, replaced under its name, expired, moved or narrowed). Null: the keyless loopback
   * caller, in force while no key is configured.
   */
  keyInForce(keyId: string | null, tenant: string, access: KeyScope): boolean;
  /** Called after every reload of the keys; returns the way to stop listening. */
  onKeysReloaded(listener: () => void): () => void;
}
