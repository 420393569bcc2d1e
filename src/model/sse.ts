// An incremental Server-Sent Events parser (the WHATWG event-stream grammar) for model
// providers' streamed responses. Chunks may split anywhere: mid-line, between a `\r` and its
// `\n`, or inside a multi-byte UTF-8 character. Lines end in `\n`, `\r\n` or `\r`; `data:` lines
// of one event are joined with `\n`; `:` comment lines (keep-alives) are skipped; one space after
// the colon is dropped; `id` and `retry` are ignored. An event is emitted at its blank line only:
// a last event that the stream never terminated is a cut-off and is dropped, so the consumer sees
// that the provider's terminal event is missing.

export interface SseEvent {
  /** The `event:` field; `message` when the event named none. */
  event: string;
  data: string;
}

export async function* parseSse(body: AsyncIterable<Buffer | Uint8Array | string>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder('utf-8');
  /** The unfinished line carried over from the previous chunk. */
  let partial = '';
  /** The previous chunk ended in `\r`: a `\n` opening this one belongs to it. */
  let skipLF = false;
  let first = true;
  let eventName = '';
  let data: string[] = [];

  const line = (text: string): SseEvent | null => {
    if (text === '') {
      const event = data.length > 0 ? { event: eventName || 'message', data: data.join('\n') } : null;
      eventName = '';
      data = [];
      return event;
    }
    if (text.charCodeAt(0) === 58 /* : */) return null;
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? '' : text.slice(colon + 1);
    if (value.charCodeAt(0) === 32 /* space */) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') eventName = value;
    return null;
  };

  const breaks = /[\r\n]/g;
  for await (const chunk of body) {
    let text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    if (text === '') continue;
    if (first) {
      first = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    let start = 0;
    if (skipLF) {
      skipLF = false;
      if (text.charCodeAt(0) === 10) start = 1;
    }
    breaks.lastIndex = start;
    for (let m = breaks.exec(text); m !== null; m = breaks.exec(text)) {
      const at = m.index;
      const lineText = partial + text.slice(start, at);
      partial = '';
      if (text.charCodeAt(at) === 13) {
        if (at + 1 === text.length) skipLF = true;
        else if (text.charCodeAt(at + 1) === 10) breaks.lastIndex = at + 2;
      }
      start = breaks.lastIndex;
      const event = line(lineText);
      if (event) yield event;
    }
    partial += text.slice(start);
  }
  // The end of the stream: whatever is pending (an unterminated line or event) is dropped.
}
