// A session's model: the configuration a client sends, the one the server reports back, and the
// replies of the scripted provider.
import { Type, type Static } from '@sinclair/typebox';
import { ref, StringEnum } from './common.js';

const ScriptBlockSchema = Type.Union([
  Type.Object({ type: Type.Literal('text'), text: Type.String() }, { additionalProperties: false }),
  Type.Object(
    {
      type: Type.Literal('tool_use'),
      id: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
      name: Type.String({ minLength: 1, maxLength: 256 }),
      input: Type.Optional(Type.Unknown()),
      input_json: Type.Optional(
        Type.String({ description: 'Raw input text as a model would stream it (may be invalid JSON, to exercise the error path)' }),
      ),
    },
    { additionalProperties: false },
  ),
]);
export const ScriptReplySchema = Type.Union(
  [
    Type.Object(
      {
        content: Type.Array(ScriptBlockSchema, { maxItems: 256 }),
        stop_reason: Type.Optional(Type.String({ maxLength: 64 })),
      },
      { additionalProperties: false },
    ),
    Type.Object({ error: Type.String({ minLength: 1, maxLength: 2000 }) }, { additionalProperties: false }),
  ],
  { $id: 'ScriptReply', description: 'One reply of the scripted provider: assistant content blocks, or a provider error' },
);

const EffortSchema = () => StringEnum(['low', 'medium', 'high']);

const ThinkingInputSchema = Type.Object(
  {
    budget_tokens: Type.Optional(Type.Integer({ minimum: 1024, maximum: 1_000_000, description: 'Tokens the model may spend thinking' })),
    effort: Type.Optional(EffortSchema()),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    description:
      'Extended thinking. anthropic: thinking with `budget_tokens` (from `effort` when only that is given: low 2048, medium 8192, high 24576), and max_tokens raised above the budget when it is not. openai: `reasoning_effort` (from `budget_tokens` when only that is given: up to 4096 low, up to 16384 medium, else high). Thinking blocks are kept in the transcript and sent back with their signatures. The scripted provider ignores it.',
  },
);

export const ModelConfigInputSchema = Type.Object(
  {
    provider: StringEnum(['anthropic', 'openai', 'scripted']),
    model: Type.String({ minLength: 1, maxLength: 256 }),
    base_url: Type.Optional(
      Type.String({
        format: 'uri',
        maxLength: 2048,
        description:
          'anthropic: the API root (default https://api.anthropic.com); openai: the root including the version path (default https://api.openai.com/v1, e.g. http://127.0.0.1:11434/v1 for Ollama). A session-supplied URL passes the egress guard.',
      }),
    ),
    api_key: Type.Optional(Type.String({ minLength: 1, maxLength: 4096, writeOnly: true })),
    max_tokens: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 8192, description: 'Largest response per model call' })),
    max_turns: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 1000, default: 50, description: 'Most model calls in one prompt turn; beyond it the turn fails with `max_turns`' }),
    ),
    thinking: Type.Optional(ThinkingInputSchema),
    context_window: Type.Optional(
      Type.Integer({ minimum: 1024, maximum: 10_000_000, description: "The model's context window in tokens, for compaction; default: known models' own" }),
    ),
    script: Type.Optional(
      Type.Array(ref(ScriptReplySchema), {
        maxItems: 10_000,
        description: 'scripted only: reply N answers the N-th model call of the conversation (counted by assistant messages)',
      }),
    ),
    subagent_script: Type.Optional(
      Type.Array(ref(ScriptReplySchema), {
        maxItems: 10_000,
        description: 'scripted only: the replies of subagent conversations (the Agent tool), counted the same way within each',
      }),
    ),
  },
  { $id: 'ModelConfigInput', additionalProperties: false },
);
export type ModelConfigInput = Static<typeof ModelConfigInputSchema>;
export const ModelConfigSchema = Type.Object(
  {
    provider: StringEnum(['anthropic', 'openai', 'scripted']),
    model: Type.String(),
    base_url: Type.Optional(Type.String()),
    has_api_key: Type.Boolean({ description: 'Whether a key is configured; the key itself is never echoed' }),
    max_tokens: Type.Integer(),
    max_turns: Type.Integer(),
    thinking: Type.Optional(
      Type.Object({ budget_tokens: Type.Optional(Type.Integer()), effort: Type.Optional(EffortSchema()) }, { description: 'Extended thinking, when the session asked for it' }),
    ),
    context_window: Type.Optional(Type.Integer({ description: "The model's context window in tokens, when one was given" })),
    source: StringEnum(['session', 'server'], {
      description: '`session`: given at creation; `server`: the server default (NORMA_MODEL_*)',
    }),
    script_replies: Type.Optional(Type.Integer({ description: 'scripted: how many replies the script has' })),
  },
  { $id: 'ModelConfig' },
);
export type ModelConfig = Static<typeof ModelConfigSchema>;
