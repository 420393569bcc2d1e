// Why a turn's signal was aborted. Pauses record `by` as their resolver, and the results of
// calls a stop leaves unfinished say what stopped them.
export class TurnStop extends Error {
  constructor(
    message: string,
    readonly by: 'cancel' | 'session_closed' | 'interrupt' | 'shutdown',
  ) {
    super(message);
    this.name = 'TurnStop';
  }
}

/** How the results of calls a stop leaves unfinished begin. */
export function stopPrefix(reason: TurnStop): string {
  return reason.by === 'shutdown' ? 'Interrupted' : 'Cancelled';
}
