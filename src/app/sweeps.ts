// The periodic retention work, each part logging what it removed and never failing the others:
// expired spill files, closed sessions past retention, expired Idempotency-Key answers, tenants'
// spending of days long past, and (at
// start-up only) the sandbox state of sessions that ended.
import type { Logger } from 'pino';
import type { OutputFiles } from '../store/outputs.js';
import type { Application } from './index.js';
import { INTERNAL } from './scope.js';

export function retentionSweeps(application: Application, outputs: OutputFiles, logger: Logger): (startup?: boolean) => Promise<unknown> {
  return (startup = false) =>
    Promise.all([
      outputs.sweep(startup).then(
        (r) => (r.expired > 0 || r.orphanDirs > 0) && logger.info(r, 'spill retention sweep'),
        (err) => logger.warn({ err }, 'spill retention sweep failed'),
      ),
      application.retention.sweepClosedSessions(INTERNAL).then(
        (n) => n > 0 && logger.info({ removed: n }, 'session retention sweep'),
        (err) => logger.warn({ err }, 'session retention sweep failed'),
      ),
      Promise.resolve()
        .then(() => application.idempotency.sweep(INTERNAL))
        .then(
          (n) => n > 0 && logger.info({ removed: n }, 'expired Idempotency-Key answers removed'),
          (err) => logger.warn({ err }, 'Idempotency-Key sweep failed'),
        ),
      Promise.resolve()
        .then(() => application.retention.sweepSpend(INTERNAL))
        .then(
          (n) => n > 0 && logger.info({ removed: n }, 'tenants\' spending of past days removed'),
          (err) => logger.warn({ err }, 'spending sweep failed'),
        ),
      ...(startup
        ? [
            application.retention.sweepSandboxState(INTERNAL).then(
              (n) => n > 0 && logger.info({ removed: n }, 'sandbox state of ended sessions removed'),
              (err) => logger.warn({ err }, 'sandbox state sweep failed'),
            ),
          ]
        : []),
    ]);
}
