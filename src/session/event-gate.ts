// Events a session's parts make while the session is being built (its MCP servers starting) are
// held until the session exists: a creation that fails leaves no event behind, and the first
// event of a session stays `session.created`.
import type { EventInput } from '../contract/events.js';
import type { EventLog } from '../events/log.js';

export class EventGate {
  private held: EventInput[] | null = [];

  constructor(
    private readonly events: EventLog,
    private readonly sessionId: string,
  ) {}

  emit(event: EventInput): void {
    if (this.held) this.held.push(event);
    else this.events.emit(this.sessionId, event);
  }

  /** Emits what was held, in order, and every later event at once. */
  open(): void {
    const held = this.held ?? [];
    this.held = null;
    for (const e of held) this.events.emit(this.sessionId, e);
  }
}
