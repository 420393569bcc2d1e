// The connections a model provider's calls go through, kept between calls. An operator-configured
// provider (no egress guard) has one plain undici Agent for its life. Behind the egress guard the
// target is checked on every attempt, and the dispatcher pinned to the checked address is kept per
// origin while the target keeps resolving to that address (a new address gets a new dispatcher):
// a call does not pay a new TCP and TLS handshake. Either way the dispatcher is explicit, so
// environment proxies are never used.
import type { Agent } from 'undici';
import { undici } from '../egress/undici.js';
import { pinnedAgent, type CheckedTarget } from '../sandbox/egress.js';
import type { ProviderTimeouts } from './provider.js';
import type { SseEvent } from './sse.js';

export class ProviderDispatchers {
  private shared: Agent | null = null;
  private readonly pinned = new Map<string, { address: string; agent: Agent }>();

  constructor(private readonly timeouts: ProviderTimeouts) {}

  /** The dispatcher for an attempt: pinned to `target`'s checked address, or the shared one without a guard. */
  async for(target: CheckedTarget | null): Promise<Agent> {
    if (!target) {
      const { Agent } = await undici();
      this.shared ??= new Agent({ connect: { timeout: this.timeouts.connectMs }, headersTimeout: this.timeouts.headersMs, bodyTimeout: this.timeouts.idleMs });
      return this.shared;
    }
    const origin = target.url.origin;
    const kept = this.pinned.get(origin);
    if (kept && kept.address === target.address) return kept.agent;
    const agent = await pinnedAgent(target, this.timeouts.connectMs, this.timeouts);
    this.pinned.set(origin, { address: target.address, agent });
    if (kept) void kept.agent.close().catch(() => undefined);
    return agent;
  }

  /**
   * A failed attempt's pinned dispatcher is not reused: the next attempt connects afresh. It is
   * closed gently — another call of the provider may still be streaming through it (parallel
   * subagents); the failed attempt's own connection went with its destroyed body.
   */
  drop(agent: Agent): void {
    for (const [origin, kept] of this.pinned) {
      if (kept.agent === agent) {
        this.pinned.delete(origin);
        void agent.close().catch(() => undefined);
      }
    }
  }

  /** Closes every kept dispatcher (their idle keep-alive connections). */
  async close(): Promise<void> {
    const agents = [this.shared, ...[...this.pinned.values()].map((p) => p.agent)];
    this.shared = null;
    this.pinned.clear();
    await Promise.all(agents.map((a) => a?.close().catch(() => undefined)));
  }
}

/** After the provider's terminal event, at most this many more events, or this long, are waited for. */
const MAX_EVENTS_AFTER_END = 8;
const MAX_MS_AFTER_END = 50;

/**
 * The reader stopped at the provider's terminal event: what follows it (normally only the end of
 * the body, at once) is read, so that the connection goes back to the pool for the next call. A
 * body that goes on, stays open or fails after that is left (its connection is then closed); the
 * answer already read stands either way.
 */
export async function drainAfterEnd(events: AsyncGenerator<SseEvent>): Promise<void> {
  const drain = (async () => {
    let after = 0;
    for await (const _ of events) {
      if (++after > MAX_EVENTS_AFTER_END) return;
    }
  })().catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, MAX_MS_AFTER_END);
  });
  await Promise.race([drain, late]);
  clearTimeout(timer);
}
