// Formatting for people: times, counts, JSON, long text, truncation notes.
import type { Truncation } from './types.js';

const pad = (n: number) => String(n).padStart(2, '0');

/** `2024-05-01 12:34:56` in local time; the input unchanged when it is not a date. */
export function formatDateTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** `12:34:56.789` in local time (the timeline). */
export function formatTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${String(d.getMilliseconds()).padStart(3, '0')}`;
}

/** 1234567 → `1,234,567`. */
export function formatCount(n: number): string {
  return String(Math.trunc(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/** Pretty JSON; never throws (undefined and cycles read as text). */
export function prettyJson(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

export const LONG_LINES = 20;
export const LONG_CHARS = 2000;

export function lineCount(text: string): number {
  return text === '' ? 0 : text.split('\n').length;
}

/** Long enough to be collapsed (more than 20 lines or 2,000 characters). */
export function isLong(text: string): boolean {
  return text.length > LONG_CHARS || lineCount(text) > LONG_LINES;
}

/** The summary line of a collapsed text. */
export function collapsedSummary(text: string): string {
  const lines = lineCount(text);
  return `${formatCount(lines)} line${lines === 1 ? '' : 's'}, ${formatCount(text.length)} characters`;
}

/** What a capped block's truncation says, in words. */
export function truncationNote(t: Truncation): string {
  if (!t.output_id) return `Output truncated: ${formatCount(t.shown_chars)} of ${formatCount(t.total_chars)} characters shown; the full output was not kept.`;
  return `Full output: ${formatCount(t.total_chars)} characters, SHA-256 ${t.sha256.slice(0, 12)}…`;
}

/** Every truncation of a result (`truncation` is the first of `truncations` when both are there). */
export function truncationsOf(result: { truncation?: Truncation; truncations?: Truncation[] }): Truncation[] {
  const all = [...(result.truncation ? [result.truncation] : []), ...(result.truncations ?? [])];
  const seen = new Set<string>();
  return all.filter((t) => {
    const key = `${t.block_index}:${t.output_id ?? ''}:${t.sha256}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
