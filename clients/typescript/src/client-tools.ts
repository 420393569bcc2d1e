// Runs a session's client tools from its event reader: for each `client_tool.requested`, the
// handler named by the request's tool runs on the request's input, and what it returns is POSTed
// as the answer (`POST /v1/sessions/{id}/client-tools/{request_id}`); a handler that throws
// answers with `is_error: true` and the error's message. Requests no longer pending when they are
// read (an event stream replayed from its start) are left alone, and so is a 409 from a request
// answered meanwhile (its timeout, a cancelled turn).
import type { Client } from 'openapi-fetch';
import type { components, paths } from './schema.js';

type Schemas = components['schemas'];
type NormaEvent = Schemas['Event'];
export type ClientToolRequest = Schemas['ClientToolRequest'];
export type ClientToolResponse = Schemas['ClientToolResponse'];
export type ClientToolDefinition = Schemas['ClientToolDefinition'];

/** What a handler returns: text, content blocks, or a whole answer (with `is_error`). */
export type ClientToolResult = string | Extract<ClientToolResponse['content'], unknown[]> | ClientToolResponse;

/** Runs one client tool: its input as the model sent it (valid against the tool's input_schema). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ClientToolHandler = (input: any, request: ClientToolRequest) => ClientToolResult | Promise<ClientToolResult>;

export interface AnswerClientToolsOptions {
  /** Every event read, before it is acted on (the reader is the helper's: this is how a caller sees the rest). */
  onEvent?: (event: NormaEvent) => void;
  /** Told of an answer that could not be sent (other than a 409: already resolved); without it, the first such error is thrown once the events end. */
  onError?: (error: Error, request: ClientToolRequest) => void;
}

/** The answer a handler's result makes. */
export function answerOf(result: ClientToolResult): ClientToolResponse {
  if (typeof result === 'string' || Array.isArray(result)) return { content: result };
  return result;
}

/**
 * Reads `events` (a session's, or a tenant's) and answers each client-tool request with its
 * handler; resolves once the events end (a session's stream ends after `session.closed`) and
 * every answer is sent.
 */
export async function answerClientTools(client: Client<paths>, events: AsyncIterable<NormaEvent>, handlers: Record<string, ClientToolHandler>, options: AnswerClientToolsOptions = {}): Promise<void> {
  const running = new Set<Promise<void>>();
  const failures: Error[] = [];
  for await (const event of events) {
    options.onEvent?.(event);
    if (event.type !== 'client_tool.requested') continue;
    const request = event.request;
    // Answered while the reader goes on: requests of other sessions (a tenant's stream) do not wait for each other.
    const one: Promise<void> = answerOne(client, event.session_id, request, handlers)
      .catch((err: unknown) => {
        const error = err instanceof Error ? err : new Error(String(err));
        if (options.onError) options.onError(error, request);
        else failures.push(error);
      })
      .finally(() => running.delete(one));
    running.add(one);
  }
  await Promise.all(running);
  if (failures.length > 0) throw failures[0];
}

async function answerOne(client: Client<paths>, sessionId: string, request: ClientToolRequest, handlers: Record<string, ClientToolHandler>): Promise<void> {
  const path = { session_id: sessionId, request_id: request.id };
  const now = await client.GET('/v1/sessions/{session_id}/client-tools/{request_id}', { params: { path } });
  if (now.data && now.data.status !== 'pending') return;
  const handler = Object.hasOwn(handlers, request.name) ? handlers[request.name] : undefined;
  let body: ClientToolResponse;
  if (!handler) body = { content: `This client has no handler for the tool ${request.name}.`, is_error: true };
  else {
    try {
      body = answerOf(await handler(request.input, request));
    } catch (err) {
      body = { content: err instanceof Error ? err.message : String(err), is_error: true };
    }
  }
  const sent = await client.POST('/v1/sessions/{session_id}/client-tools/{request_id}', { params: { path }, body });
  if (sent.error && sent.response.status !== 409) throw new Error(`answering ${request.id} (${request.name}): ${sent.response.status} ${sent.error.detail}`);
}
