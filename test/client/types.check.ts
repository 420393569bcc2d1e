// Compile-time checks of the generated client types (checked by `tsc --noEmit -p .`, which CI
// runs): what a request may and may not be. Every `@ts-expect-error` below must be an error;
// if a line compiled, tsc would report the unused directive.
import { createNormaClient, type EventOf, type NormaEvent, type paths, type TurnCreate } from '../../clients/typescript/src/index.js';

export async function requestShapes(): Promise<void> {
  const norma = createNormaClient({ baseUrl: 'http://127.0.0.1:7070' });
  // A session needs no body, or an empty one: every field has a default.
  await norma.POST('/v1/sessions');
  await norma.POST('/v1/sessions', { body: {} });
  await norma.POST('/v1/sessions', { body: { permission_mode: 'acceptEdits', output_cap_chars: 1000 } });
  // @ts-expect-error a mode outside the enum
  await norma.POST('/v1/sessions', { body: { permission_mode: 'sometimes' } });

  const direct: TurnCreate = { tool_uses: [{ name: 'LS', input: {} }] };
  const prompt: TurnCreate = { prompt: 'hello' };
  void direct;
  void prompt;
  // @ts-expect-error a turn is one of the two kinds, not neither
  const neither: TurnCreate = {};
  // @ts-expect-error nor both
  const both: TurnCreate = { prompt: 'x', tool_uses: [{ name: 'LS', input: {} }] };
  void neither;
  void both;

  await norma.POST('/v1/sessions/{session_id}/permissions/{permission_id}', {
    params: { path: { session_id: 's', permission_id: 'p' } },
    body: { behavior: 'deny', message: 'no', interrupt: true },
  });
  await norma.POST('/v1/sessions/{session_id}/permissions/{permission_id}', {
    params: { path: { session_id: 's', permission_id: 'p' } },
    // @ts-expect-error a denial takes no remember rules
    body: { behavior: 'deny', remember: ['Write'] },
  });
}

// The event stream's body is text on the wire; the document's `x-sse-data-schema` names the schema of
// each event's data, and the generated type of the body is that union (what the event reader yields).
type StreamBody = paths['/v1/sessions/{session_id}/events']['get']['responses'][200]['content']['text/event-stream'];
export const streamBodyIsEvent = (b: StreamBody): NormaEvent => b;
export const eventIsStreamBody = (e: NormaEvent): StreamBody => e;

export async function headShapes(): Promise<void> {
  const norma = createNormaClient({ baseUrl: 'http://127.0.0.1:7070' });
  // HEAD is declared where it is served: every GET route but the event stream.
  await norma.HEAD('/healthz');
  await norma.HEAD('/v1/sessions/{session_id}/outputs/{output_id}', { params: { path: { session_id: 's', output_id: 'o' } } });
  // @ts-expect-error the event stream serves no HEAD
  await norma.HEAD('/v1/sessions/{session_id}/events', { params: { path: { session_id: 's' } } });
}

export function eventShapes(e: NormaEvent): string {
  // The event union is discriminated on `type`.
  if (e.type === 'tool.completed') return e.result.tool_use_id;
  if (e.type === 'permission.requested') return e.permission.tool;
  const closed: EventOf<'session.closed'> | undefined = e.type === 'session.closed' ? e : undefined;
  return closed?.reason ?? e.type;
}
