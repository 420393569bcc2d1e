// The timeline: one <li data-seq> per durable event, in seq order (seq, time, type, summary).
// Live-only events (message.delta, tool.progress) are not list items: they repeat the seq of
// the last durable event, are never replayed, and are superseded by message.completed and
// tool.completed, which are. While they stream, their text shows below the list. So every
// list item has a unique data-seq, and every durable event has one.
import { Component } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { summarize } from '../lib/events.js';
import { formatTime } from '../lib/format.js';
import type { LiveState } from '../lib/session-state.js';
import type { NormaEvent } from '../lib/types.js';

/** When the event happened (`time`; `created_at` on servers that named it so). */
const timeOf = (e: NormaEvent): string => e.time ?? (e as { created_at?: string }).created_at ?? '';

/** Events are rendered in chunks; a full chunk never changes, so it is not rendered again. */
const CHUNK = 200;

class Chunk extends Component<{ events: readonly NormaEvent[] }> {
  override shouldComponentUpdate(next: { events: readonly NormaEvent[] }): boolean {
    return next.events.length !== this.props.events.length || next.events[0] !== this.props.events[0];
  }
  override render() {
    return (
      <>
        {this.props.events.map((e) => (
          <li key={e.seq} data-seq={e.seq} class={`ev ev-${e.type.split('.')[0]}`}>
            <span class="seq">#{e.seq}</span>
            <time dateTime={timeOf(e)}>{formatTime(timeOf(e))}</time>
            <span class="type">{e.type}</span>
            <span class="summary">{summarize(e)}</span>
          </li>
        ))}
      </>
    );
  }
}

export function Timeline({ events, live }: { events: readonly NormaEvent[]; live: LiveState }) {
  const list = useRef<HTMLOListElement>(null);
  const atEnd = useRef(true);
  // Follow new events while scrolled to the end; stay put while reading further up. Once a
  // frame at most: reading the list's height lays the page out, which a replay of thousands of
  // events would otherwise do for every batch.
  const follow = useRef<number | null>(null);
  useEffect(() => {
    if (!atEnd.current || follow.current !== null) return;
    follow.current = requestAnimationFrame(() => {
      follow.current = null;
      const el = list.current;
      if (el && atEnd.current) el.scrollTop = el.scrollHeight;
    });
  }, [events.length]);
  useEffect(() => () => {
    if (follow.current !== null) cancelAnimationFrame(follow.current);
  }, []);
  const onScroll = () => {
    const el = list.current;
    if (el) atEnd.current = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
  };
  const chunks: (readonly NormaEvent[])[] = [];
  for (let i = 0; i < events.length; i += CHUNK) chunks.push(events.slice(i, i + CHUNK));
  const streaming = Object.entries(live.messages);
  return (
    <section aria-labelledby="timeline-h" class="panel">
      <h2 id="timeline-h">Timeline</h2>
      {events.length === 0 ? (
        <p class="muted">No events yet.</p>
      ) : (
        <p class="muted">
          {events.length} event{events.length === 1 ? '' : 's'}
        </p>
      )}
      <ol aria-label="Event timeline" class="timeline" ref={list} onScroll={onScroll} tabIndex={0}>
        {chunks.map((c) => (
          <Chunk key={c[0]!.seq} events={c} />
        ))}
      </ol>
      {streaming.length > 0 && (
        <div class="streaming">
          {streaming.map(([key, text]) => (
            <p key={key}>
              <span class="type">streaming</span> <span class="mono">{key}</span> {text}
            </p>
          ))}
        </div>
      )}
    </section>
  );
}
