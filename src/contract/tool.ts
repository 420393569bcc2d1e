// Tools and their calls: definitions, tool_use blocks, and the tool_results with their
// truncation metadata.
import { Type, type Static } from '@sinclair/typebox';
import { Id, ImageBlockSchema, OneOf, TextBlockSchema, ref } from './common.js';

export const ToolDefinitionSchema = Type.Object(
  {
    name: Type.String(),
    description: Type.String(),
    input_schema: Type.Unknown({ description: 'JSON Schema of the tool input' }),
    deferred: Type.Optional(Type.Boolean({ description: 'With ?include=deferred: kept out of the model\'s list (found with SearchExtraTools)' })),
    unlocked: Type.Optional(Type.Boolean({ description: 'With ?include=deferred, for a deferred tool: it may run now' })),
    client: Type.Optional(Type.Boolean({ description: 'A tool the session\'s client runs (`client_tools`): a call waits for the client\'s answer; the server never runs it' })),
  },
  { $id: 'ToolDefinition' },
);
export const ToolListSchema = Type.Array(ref(ToolDefinitionSchema), { $id: 'ToolList' });

export const ToolUseInputSchema = Type.Object(
  {
    id: Type.Optional(Id('Client id for the call; generated (`toolu_…`) when absent')),
    name: Type.String({ minLength: 1, maxLength: 256 }),
    input: Type.Unknown({ description: 'The tool input; validated against the tool schema inside the turn' }),
  },
  { additionalProperties: false },
);
export const ToolUseSchema = Type.Object(
  {
    type: Type.Literal('tool_use'),
    id: Type.String(),
    name: Type.String(),
    input: Type.Unknown(),
    input_error: Type.Optional(
      Type.String({ description: 'Prompt turns: the model sent input that is not a JSON object (`input` is then `{}`); the call gets an is_error result naming this' }),
    ),
  },
  { $id: 'ToolUse' },
);
export type ToolUse = Static<typeof ToolUseSchema>;

export const TruncationSchema = Type.Object(
  {
    output_id: Type.Optional(Type.String({ description: 'Spill file id (`out_…`) holding the full text' })),
    block_index: Type.Integer({ minimum: 0, description: 'Which content block was capped' }),
    total_chars: Type.Integer({ minimum: 0 }),
    shown_chars: Type.Integer({ minimum: 0 }),
    sha256: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'SHA-256 (hex) of the full UTF-8 text' }),
  },
  { $id: 'Truncation', description: 'Structured metadata of a capped block; never inferred from text' },
);
export type Truncation = Static<typeof TruncationSchema>;

export const ToolResultSchema = Type.Object(
  {
    type: Type.Literal('tool_result'),
    tool_use_id: Type.String(),
    is_error: Type.Boolean(),
    content: Type.Array(OneOf([ref(TextBlockSchema), ref(ImageBlockSchema)], { discriminator: 'type' })),
    truncation: Type.Optional(ref(TruncationSchema)),
    truncations: Type.Optional(
      Type.Array(ref(TruncationSchema), { description: 'Every capped block, when more than one was capped' }),
    ),
  },
  { $id: 'ToolResult' },
);
export type ToolResult = Static<typeof ToolResultSchema>;

export const ThinkingBlockSchema = Type.Object(
  {
    type: Type.Literal('thinking'),
    thinking: Type.String(),
    signature: Type.String({ description: 'The provider\'s signature of the thinking, sent back with it unchanged (empty: a provider that signs none)' }),
  },
  { $id: 'ThinkingBlock', description: 'The model\'s thinking (model.thinking), kept and sent back as the provider gave it' },
);
export const RedactedThinkingBlockSchema = Type.Object(
  { type: Type.Literal('redacted_thinking'), data: Type.String({ description: 'Encrypted thinking, sent back unchanged' }) },
  { $id: 'RedactedThinkingBlock', description: 'Thinking the provider encrypted' },
);

export const ContentBlockSchema = OneOf(
  [ref(TextBlockSchema), ref(ToolUseSchema), ref(ToolResultSchema), ref(ThinkingBlockSchema), ref(RedactedThinkingBlockSchema)],
  {
    $id: 'ContentBlock',
    discriminator: 'type',
    description: 'A block of a model message: text, a tool_use, thinking or redacted_thinking (assistant), or a tool_result (user)',
  },
);
