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
    source: StringEnum(['session', 'server'], {
      description: '`session`: given at creation; `server`: the server default (NORMA_MODEL_*)',
    }),
    script_replies: Type.Optional(Type.Integer({ description: 'scripted: how many replies the script has' })),
  },
  { $id: 'ModelConfig' },
);
export type ModelConfig = Static<typeof ModelConfigSchema>;
