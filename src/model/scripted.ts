// A deterministic provider driven by a JSON script: reply N answers the N-th model call of the
// conversation, counted by the assistant messages already in the transcript, so a script plays the
// same way on every run, across turns and after a restart. Text streams in small pieces like a real
// model's would; a `tool_use` may carry `input_json` (raw text, possibly invalid) to exercise the
// same parse-error path as a real stream. An `{"error": …}` reply fails the call like a provider error.
import type { ScriptReplySchema } from '../contract/schemas.js';
import type { Static } from '@sinclair/typebox';
import { ProviderError, type AssistantBlock, type ModelProvider, type ModelRequest, type ModelResponse } from './provider.js';
import { parseToolInput } from './tool-input.js';

export type ScriptReply = Static<typeof ScriptReplySchema>;

const CHUNK = 16;

export class ScriptedProvider implements ModelProvider {
  readonly name = 'scripted';

  constructor(
    readonly model: string,
    private readonly script: readonly ScriptReply[],
  ) {}

  async complete(req: ModelRequest): Promise<ModelResponse> {
    req.signal.throwIfAborted();
    const n = req.messages.filter((m) => m.role === 'assistant').length;
    const reply = this.script[n];
    if (!reply) {
      throw new ProviderError(`the script has ${this.script.length} replies and this is model call ${n + 1} of the conversation`, 'provider_script');
    }
    if ('error' in reply) throw new ProviderError(`scripted provider error: ${reply.error}`, 'provider_script');
    const content: AssistantBlock[] = [];
    let outputChars = 0;
    for (const [i, block] of reply.content.entries()) {
      if (block.type === 'text') {
        for (let at = 0; at < block.text.length; at += CHUNK) {
          req.signal.throwIfAborted();
          req.onText?.(block.text.slice(at, at + CHUNK), i);
          // Let the event loop run between pieces, as a network stream would.
          await new Promise<void>((resolve) => setImmediate(resolve));
        }
        content.push({ type: 'text', text: block.text });
        outputChars += block.text.length;
      } else {
        const id = block.id ?? `toolu_s${n}_${i}`;
        if (block.input_json !== undefined) {
          const parsed = parseToolInput(block.input_json);
          content.push({ type: 'tool_use', id, name: block.name, ...parsed });
        } else {
          content.push({ type: 'tool_use', id, name: block.name, input: block.input ?? {} });
        }
        outputChars += JSON.stringify(block.input ?? block.input_json ?? {}).length;
      }
    }
    req.signal.throwIfAborted();
    const stopReason = reply.stop_reason ?? (content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn');
    const inputChars = JSON.stringify(req.messages).length + (req.system?.length ?? 0);
    // A rough count (4 characters a token), so usage totals behave like a real provider's.
    return { content, stopReason, usage: { input_tokens: Math.ceil(inputChars / 4), output_tokens: Math.ceil(outputChars / 4) } };
  }
}
