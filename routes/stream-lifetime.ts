// How long an event stream stays open, for both streams (a session's, the tenant's): until the
// client goes, the server shuts down, or the exact key it was opened with (directly, by ticket or
// by a console login) is no longer in force with read access — removed, replaced under its name
// or narrowed by a reload (checked at once), or expired (checked with every heartbeat). A keyless
// stream lasts while the server has no key. A `: ping` comment goes out with every heartbeat.
import type { FastifyRequest } from 'fastify';
import type { ServerResponse } from 'node:http';
import type { AppContext } from '../src/app-context.js';
import type { EventStreamWriter } from '../src/http/sse.js';
import { scopeOf } from './common.js';

export interface HeldStream {
  readonly closed: boolean;
  /** Ends the stream now (once): timers and listeners go, `onClose` runs, the response ends. */
  finish(): void;
}

export function holdStream(
  ctx: AppContext,
  req: FastifyRequest,
  res: ServerResponse,
  stream: EventStreamWriter,
  on: {
    /** The server is going away or the key is gone: what to say before the stream ends. */
    end: (reason: 'shutdown' | 'revoked') => void;
    /** The stream ended, whatever the cause: stop what feeds it. */
    close: () => void;
  },
): HeldStream {
  let closed = false;
  const finish = () => {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    stopWatchingKeys();
    ctx.shutdown.removeEventListener('abort', onShutdown);
    on.close();
    res.end();
  };
  const endWith = (reason: 'shutdown' | 'revoked') => {
    if (closed) return;
    on.end(reason);
    finish();
  };
  const onShutdown = () => endWith('shutdown');
  ctx.shutdown.addEventListener('abort', onShutdown);
  const scope = scopeOf(req);
  const keyGone = () => scope.tenant !== null && !ctx.keyInForce(scope.keyId, scope.tenant, 'read');
  const stopWatchingKeys = ctx.onKeysReloaded(() => keyGone() && endWith('revoked'));
  const heartbeat = setInterval(() => {
    if (keyGone()) endWith('revoked');
    else stream.comment('ping');
  }, ctx.config.sseHeartbeatMs);
  req.raw.on('close', finish);
  res.on('close', finish);
  res.on('error', finish);
  return {
    get closed() {
      return closed;
    },
    finish,
  };
}
