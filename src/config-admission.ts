// The settings of turn admission (src/app/admission.ts): how many turns this server runs at once,
// how many more may wait for a place, and for how long.
export interface AdmissionSettings {
  /** NORMA_MAX_RUNNING_TURNS: turns started here that run at once (a paused turn gives its place back). */
  maxRunning: number;
  /** NORMA_TURN_QUEUE: requests for a turn that may wait for a place, every tenant's (503 beyond). */
  maxQueued: number;
  /** NORMA_TURN_QUEUE_PER_TENANT: of those, one tenant's (429 beyond). */
  maxQueuedPerTenant: number;
  /** NORMA_TURN_QUEUE_WAIT_MS: how long one waits at most before it is refused (503). */
  maxWaitMs: number;
}

export function readAdmissionSettings(positiveInt: (name: string, fallback: number) => number, problems: string[]): AdmissionSettings {
  const s: AdmissionSettings = {
    maxRunning: positiveInt('NORMA_MAX_RUNNING_TURNS', 128),
    maxQueued: positiveInt('NORMA_TURN_QUEUE', 1024),
    maxQueuedPerTenant: positiveInt('NORMA_TURN_QUEUE_PER_TENANT', 256),
    maxWaitMs: positiveInt('NORMA_TURN_QUEUE_WAIT_MS', 5_000),
  };
  if (s.maxQueuedPerTenant > s.maxQueued) problems.push(`NORMA_TURN_QUEUE_PER_TENANT (${s.maxQueuedPerTenant}) cannot be more than NORMA_TURN_QUEUE (${s.maxQueued})`);
  if (s.maxWaitMs > 60_000) problems.push(`NORMA_TURN_QUEUE_WAIT_MS must be at most 60000, got ${s.maxWaitMs}`);
  return s;
}
