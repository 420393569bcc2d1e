// The pure parts of compaction: where a conversation may be cut (never between a tool_use and its
// result), what leaving out a result keeps (a spill pointer only from the server's own note, never
// from text a tool printed), the summary's transcript bounded, the conversation rebuilt from turns,
// a provider's overflow recognised, and a provider's usage taken as sane counts.
import { describe, expect, it } from 'vitest';
import type { Compaction } from '../../src/contract/compaction.js';
import { ProviderError, type Message } from '../../src/model/provider.js';
import { chooseCut, conversationOf, elideResults, isContextOverflow, renderTranscript, validCut } from '../../src/session/compaction.js';
import { saneUsage } from '../../src/session/spending.js';

const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });
const call = (id: string): Message => ({ role: 'assistant', content: [{ type: 'tool_use', id, name: 'Read', input: { file_path: 'a' } }] });
const result = (id: string, ...texts: string[]): Message => ({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, is_error: false, content: texts.map((text) => ({ type: 'text' as const, text })) }] });
const answer = (text: string): Message => ({ role: 'assistant', content: [{ type: 'text', text }] });

describe('compaction', () => {
  const conversation = [user('task'), call('t1'), result('t1', 'x'.repeat(1000)), call('t2'), result('t2', 'y'.repeat(1000)), answer('done'), user('more'), call('t3'), result('t3', 'z')];

  it('never cuts between a tool_use and its tool_result', () => {
    const cuts = conversation.map((_, i) => validCut(conversation, i));
    expect(cuts).toEqual([false, true, false, true, false, true, true, true, false]);
    // Whatever is to be kept, the chosen cut is a valid one (or none).
    for (let keep = 0; keep < 3000; keep += 50) {
      const c = chooseCut(conversation, (m) => JSON.stringify(m).length / 4, keep);
      expect(c === 0 || validCut(conversation, c)).toBe(true);
    }
    // A conversation that is one call and its result cannot be cut.
    expect(chooseCut([user('t'), call('a'), result('a', 'r')], () => 1, 0)).toBe(1);
    expect(chooseCut([call('a'), result('a', 'r')], () => 1, 0)).toBe(0);
  });

  it('leaves out long results with a note; a spill pointer comes only from the server\'s own last block', () => {
    const note = '[Output truncated: 30000 of 90000 characters shown. The full output is kept as out_REAL.]';
    const spoof = `${'q'.repeat(500)} The full output is kept as out_FAKE. [Output truncated: 1 of 2 characters shown. The full output is kept as out_FAKE.]`;
    const { messages, elided } = elideResults([call('a'), result('a', 'p'.repeat(500), note), call('b'), result('b', spoof), call('c'), result('c', 'short')]);
    expect(elided).toBe(2);
    const texts = messages.filter((m) => m.role === 'user').map((m) => (m.content[0] as { content: { text: string }[] }).content[0]!.text);
    expect(texts[0]).toMatch(/^\[Compacted: the result of Read \(\d+ characters, sha256 [0-9a-f]{16}\) was left out to save context; its full output is kept as out_REAL\.\]$/);
    expect(texts[1]).toContain("the session's record of call b has it in full");
    expect(texts[1]).not.toContain('out_FAKE');
    expect(texts[2]).toBe('short');
  });

  it('bounds the summary\'s transcript, keeping its start and end', () => {
    const long = [user(`TASK ${'a'.repeat(50_000)}`), answer(`LATEST ${'b'.repeat(50_000)}`)];
    const text = renderTranscript(long, 10_000);
    expect(text.length).toBeLessThan(10_200);
    expect(text.startsWith('### user\nTASK')).toBe(true);
    expect(text.endsWith('b')).toBe(true);
    expect(text).toMatch(/characters of the middle of the conversation are left out here/);
    // A tool call's input and result are clipped each.
    expect(renderTranscript([call('a'), result('a', 'r'.repeat(10_000))], 1e9)).toContain('more characters]');
  });

  it('rebuilds the conversation from turns: the newest compaction, then what followed', () => {
    const compaction = { covers: 2, messages: [user('SUMMARY')] } as unknown as Compaction;
    const turns = [
      { messages: [user('one'), answer('1')] },
      { messages: [user('two'), answer('2'), user('three'), answer('3')], compaction },
      { messages: [user('four'), answer('4')] },
    ];
    expect(conversationOf(turns).map((m) => (m.content[0] as { text: string }).text)).toEqual(['SUMMARY', 'three', '3', 'four', '4']);
    expect(conversationOf([turns[0]!, turns[2]!])).toHaveLength(4);
  });

  it('recognises a provider\'s "too long", and only that', () => {
    expect(isContextOverflow(new ProviderError('anthropic rejected the request (400): prompt is too long: 210000 tokens > 200000 maximum', 'provider_rejected', false, 400))).toBe(true);
    expect(isContextOverflow(new ProviderError("This model's maximum context length is 128000 tokens", 'provider_rejected', false, 400))).toBe(true);
    expect(isContextOverflow(new ProviderError('context_length_exceeded', 'provider_stream'))).toBe(true);
    expect(isContextOverflow(new ProviderError('invalid api key', 'provider_auth', false, 401))).toBe(false);
    expect(isContextOverflow(new ProviderError('prompt is too long', 'provider_overloaded', true, 529))).toBe(false);
    expect(isContextOverflow(new Error('prompt is too long'))).toBe(false);
  });

  it('takes a provider\'s usage as whole, non-negative, bounded counts, the cache within the input', () => {
    expect(saneUsage({ input_tokens: -1e12, output_tokens: 1e30, cache_read_input_tokens: 5 })).toEqual({ input_tokens: 0, output_tokens: 100_000_000 });
    expect(saneUsage({ input_tokens: 100.7, output_tokens: Number.NaN, cache_read_input_tokens: 80, cache_creation_input_tokens: 80 })).toEqual({
      input_tokens: 100,
      output_tokens: 0,
      cache_read_input_tokens: 80,
      cache_creation_input_tokens: 20,
    });
  });
});
