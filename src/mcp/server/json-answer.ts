// A request's answer as JSON when the SDK's transport would have streamed one message.
// The transport answers every POSTed request with an SSE stream (it must: a call may send progress
// and elicitation requests before its result). Most answers are that stream's first and only
// message, written at once; parsing a stream costs a client far more than one JSON body (the MCP
// SDK's client pipes it through a text decoder and an event parser). So the stream is read here
// for a short while: when its first message is the request's answer, that answer goes out as
// `application/json` — which Streamable HTTP lets a server choose per request — and otherwise
// (a notification or request came first, or nothing came in time) the client gets the stream
// itself, from its first byte, with nothing lost or reordered.

/** An answer sent as it is, without a web Response around it. */
export interface PlainAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** How long an answer may take to come as JSON; after that the client gets the stream (and its keep-alives). */
export const JSON_ANSWER_WAIT_MS = 1000;

type Read = { done: true; value?: undefined } | { done: false; value: Uint8Array };

/** `response` as JSON when its stream's first message is the answer to `requestId` within `waitMs`; else the stream, whole. */
export async function settleAnswer(response: Response, requestId: string | number, waitMs = JSON_ANSWER_WAIT_MS): Promise<Response | PlainAnswer> {
  if (response.status !== 200 || !response.body || !(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) return response;
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const seen: Uint8Array[] = [];
  let text = '';
  let pending: Promise<Read> | undefined;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), waitMs)));
  try {
    for (;;) {
      pending = reader.read();
      const read = await Promise.race([pending, late]);
      if (read === 'late') break;
      pending = undefined;
      if (read.done) break;
      seen.push(read.value);
      text += decoder.decode(read.value, { stream: true });
      const verdict = firstMessage(text, requestId);
      if (verdict === 'more') continue;
      if (verdict === 'stream') break;
      // The answer came first: the stream ends after it (the transport closes a request's stream once answered).
      void reader.cancel().catch(() => {});
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      const session = response.headers.get('mcp-session-id');
      if (session !== null) headers['mcp-session-id'] = session;
      return { status: 200, headers, body: verdict.answer };
    }
  } finally {
    clearTimeout(timer);
  }
  // Handed over as it came: what was read first, then the rest as the transport writes it.
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of seen) controller.enqueue(chunk);
    },
    async pull(controller) {
      const read = await (pending ?? reader.read());
      pending = undefined;
      if (read.done) controller.close();
      else controller.enqueue(read.value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  return new Response(stream, { status: response.status, headers: response.headers });
}

/**
 * What the stream read so far says: 'more' (no whole message yet), 'stream' (its first message is
 * not the answer), or the answer's JSON text. Comments (keep-alives) are skipped.
 */
export function firstMessage(text: string, requestId: string | number): 'more' | 'stream' | { answer: string } {
  let from = 0;
  for (;;) {
    const end = eventEnd(text, from);
    if (end === null) return 'more';
    const data: string[] = [];
    for (const line of text.slice(from, end.at).split(/\r\n|\r|\n/)) {
      if (line.startsWith('data:')) data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
    }
    from = end.next;
    if (data.length === 0) continue;
    const body = data.join('\n');
    let message: unknown;
    try {
      message = JSON.parse(body);
    } catch {
      return 'stream';
    }
    if (message === null || typeof message !== 'object') return 'stream';
    const m = message as { id?: unknown; result?: unknown; error?: unknown; method?: unknown };
    return m.id === requestId && m.method === undefined && (m.result !== undefined || m.error !== undefined) ? { answer: body } : 'stream';
  }
}

/** Where the event starting at `from` ends (a blank line), and where the next begins. */
function eventEnd(text: string, from: number): { at: number; next: number } | null {
  const re = /\r\n\r\n|\n\n|\r\r/g;
  re.lastIndex = from;
  const m = re.exec(text);
  return m ? { at: m.index, next: m.index + m[0].length } : null;
}
