// What a compaction does to a conversation, without any I/O: where it may be cut (never between a
// tool_use and its tool_result), old tool results left out in favour of a note naming where their
// full text stays (the cheap stage), and the older part rendered as a transcript for the model to
// summarise (the second stage) — bounded, so a conversation too large for the window can still be
// summarised. The compactor (compactor.ts) runs these and the model call.
import { createHash } from 'node:crypto';
import type { Compaction } from '../contract/compaction.js';
import { ProviderError, type Message, type UserBlock } from '../model/provider.js';

/** A tool_result shorter than this is kept as it is: its note would save little. */
export const ELIDE_MIN_CHARS = 400;
/** One tool call's input or result in the rendered transcript, at most. */
const RENDER_ITEM_CHARS = 2_000;

/** How a compacted conversation begins: the summary, with what it stands for. */
export const SUMMARY_PREFIX =
  'This conversation was compacted to fit the context window: the earlier part is summarised below. The full transcript stays in the session\'s record.';

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * Whether the conversation may be cut before `messages[i]`: the part before it is compacted and
 * the rest kept verbatim. A user message of tool results belongs with the assistant message
 * before it, so the cut never falls just before one.
 */
export function validCut(messages: readonly Message[], i: number): boolean {
  if (i <= 0 || i >= messages.length) return false;
  const m = messages[i]!;
  return m.role === 'assistant' || !m.content.some((b) => b.type === 'tool_result');
}

/**
 * The cut that keeps at least `keepTokens` of the newest messages verbatim (when there is more
 * than that), as late as a valid cut allows; 0 when no cut leaves anything to compact.
 */
export function chooseCut(messages: readonly Message[], tokensOf: (m: Message) => number, keepTokens: number): number {
  let kept = 0;
  let i = messages.length;
  // Keep at least the last message, and as many before it as the budget allows.
  while (i > 1) {
    const t = tokensOf(messages[i - 1]!);
    if (i < messages.length && kept + t > keepTokens) break;
    kept += t;
    i--;
  }
  for (let c = i; c >= 1; c--) if (validCut(messages, c)) return c;
  // Nothing before the kept part can be cut off cleanly: keep less.
  for (let c = i + 1; c < messages.length; c++) if (validCut(messages, c)) return c;
  return 0;
}

/** Tool names by tool_use id, from the assistant messages. */
function toolNames(messages: readonly Message[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const m of messages) if (m.role === 'assistant') for (const b of m.content) if (b.type === 'tool_use') names.set(b.id, b.name);
  return names;
}

/** The note a capped result ends with (contract/transcript.ts), as a whole block: text a tool printed cannot pass for it. */
const KEPT_AS = /^\[Output truncated: \d+ of \d+ characters shown\. The full output is kept as (out_[A-Za-z0-9_-]+)\.\]$/;

/**
 * The messages with every tool_result of at least ELIDE_MIN_CHARS characters replaced by a note:
 * the tool, the size and digest of what it said, and where its full text stays (its spill file, or
 * the session's record of the call). Images are left out the same way. Returns how many results it left out.
 */
export function elideResults(messages: readonly Message[]): { messages: Message[]; elided: number } {
  const names = toolNames(messages);
  let elided = 0;
  const out = messages.map((m): Message => {
    if (m.role !== 'user') return m;
    const content = m.content.map((b): UserBlock => {
      if (b.type !== 'tool_result') return b;
      const text = b.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
      const images = b.content.filter((c) => c.type === 'image').length;
      if (text.length < ELIDE_MIN_CHARS && images === 0) return b;
      elided++;
      const last = b.content.at(-1);
      const spill = b.content.length > 1 && last?.type === 'text' ? KEPT_AS.exec(last.text)?.[1] : undefined;
      const where = spill ? `its full output is kept as ${spill}` : `the session's record of call ${b.tool_use_id} has it in full`;
      const what = `${text.length} characters${images > 0 ? ` and ${images} image(s)` : ''}, sha256 ${sha256(text).slice(0, 16)}`;
      return {
        type: 'tool_result',
        tool_use_id: b.tool_use_id,
        is_error: b.is_error,
        content: [{ type: 'text', text: `[Compacted: the result of ${names.get(b.tool_use_id) ?? 'this call'} (${what}) was left out to save context; ${where}.]` }],
      };
    });
    return { role: 'user', content };
  });
  return { messages: out, elided };
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)} […${text.length - max} more characters]`;
}

/**
 * The messages as a plain transcript a model can summarise, at most `maxChars` characters: when
 * longer, its beginning (the task) and its end (the latest work) are kept and the middle is said
 * to be left out.
 */
export function renderTranscript(messages: readonly Message[], maxChars: number): string {
  const parts: string[] = [];
  for (const m of messages) {
    const lines: string[] = [];
    for (const b of m.content) {
      if (b.type === 'text') lines.push(b.text);
      else if (b.type === 'tool_use') lines.push(`[call ${b.name} ${b.id}: ${clip(JSON.stringify(b.input ?? {}), RENDER_ITEM_CHARS)}]`);
      else if (b.type === 'tool_result') {
        const text = b.content.map((c) => (c.type === 'text' ? c.text : '[an image]')).join('\n');
        lines.push(`[result of ${b.tool_use_id}${b.is_error ? ' (an error)' : ''}: ${clip(text, RENDER_ITEM_CHARS)}]`);
      }
    }
    parts.push(`### ${m.role}\n${lines.join('\n')}`);
  }
  const whole = parts.join('\n\n');
  if (whole.length <= maxChars) return whole;
  const head = Math.floor(maxChars * 0.25);
  const tail = maxChars - head;
  return `${whole.slice(0, head)}\n\n[… ${whole.length - head - tail} characters of the middle of the conversation are left out here …]\n\n${whole.slice(whole.length - tail)}`;
}

export const SUMMARY_SYSTEM =
  'You compact the conversation of an AI agent that works with tools, so that it can go on with its task in less context. ' +
  'Write a summary that keeps, precisely (names, paths, numbers, commands): the user\'s task and every requirement they stated; ' +
  'the decisions made and why; the files read, created or changed and what changed in them; commands run and results that matter; ' +
  'errors met and how they were handled; the open todos and the next step. Leave out pleasantries. Never invent anything that is not in the transcript.';

/** The user message a summary becomes, at the head of the compacted conversation. */
export function summaryMessage(summary: string): Message {
  return { role: 'user', content: [{ type: 'text', text: `${SUMMARY_PREFIX}\n\n<summary>\n${summary.trim()}\n</summary>` }] };
}

/**
 * The conversation prompt turns send, from their stored messages, oldest turn first: a turn's
 * compaction stands for everything before it (its own first `covers` messages and every earlier
 * turn's), and what follows is sent as it is.
 */
export function conversationOf(turns: readonly { messages?: unknown; compaction?: Compaction }[]): Message[] {
  let out: Message[] = [];
  for (const t of turns) {
    const messages = (t.messages ?? []) as Message[];
    if (t.compaction) out = [...(t.compaction.messages as Message[]), ...messages.slice(t.compaction.covers)];
    else out.push(...messages);
  }
  return out;
}

/** What providers answer when the input does not fit the model's context window. */
const OVERFLOW = /prompt is too long|context[_ ]length|maximum context|context window|too many (input )?tokens|reduce the length|input is too long|request too large/i;

/** Whether a failed model call was refused because its input does not fit the context window. */
export function isContextOverflow(err: unknown): boolean {
  return err instanceof ProviderError && (err.status === 400 || err.status === 413 || err.code === 'provider_rejected' || err.code === 'provider_stream') && OVERFLOW.test(err.message);
}
