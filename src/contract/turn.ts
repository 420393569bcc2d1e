// Turns: what a client posts (direct tool_uses or a prompt) and the turn the server reports,
// with its messages, usage and error.
import { Type, type Static } from '@sinclair/typebox';
import { Id, ref } from './common.js';
import { Timestamp } from './fields.js';
import { ToolResultSchema, ToolUseInputSchema, ToolUseSchema } from './tool.js';

export const TURN_STATUSES = ['running', 'awaiting_permission', 'awaiting_input', 'completed', 'failed', 'cancelled', 'interrupted'] as const;
export type TurnStatus = (typeof TURN_STATUSES)[number];
/** A turn that waits for people (a permission request or a question is pending). */
export const PAUSED_STATUSES: ReadonlySet<TurnStatus> = new Set(['awaiting_permission', 'awaiting_input']);
/** A turn that has not ended: running, or paused for people. */
export const isOpenStatus = (s: TurnStatus): boolean => s === 'running' || PAUSED_STATUSES.has(s);

export const PromptTextBlockSchema = Type.Object(
  { type: Type.Literal('text'), text: Type.String({ minLength: 1 }) },
  { $id: 'PromptTextBlock', additionalProperties: false },
);

export const TurnCreateSchema = Type.Object(
  {
    tool_uses: Type.Optional(Type.Array(ToolUseInputSchema, { minItems: 1, maxItems: 256 })),
    prompt: Type.Optional(
      // The array comes first: with the server's array coercion a string would otherwise be
      // taken apart by the first branch before the second one sees it.
      Type.Union([Type.Array(ref(PromptTextBlockSchema), { minItems: 1, maxItems: 256 }), Type.String({ minLength: 1, maxLength: 1_000_000 })], {
        description: 'A prompt turn: the server runs the model loop with the session\'s model',
      }),
    ),
  },
  { $id: 'TurnCreate', additionalProperties: false, description: 'Exactly one of `tool_uses` (direct) or `prompt`' },
);
export type TurnCreate = Static<typeof TurnCreateSchema>;

export const TurnErrorSchema = Type.Object(
  { code: Type.String(), message: Type.String() },
  { $id: 'TurnError' },
);

export const UsageSchema = Type.Object(
  { input_tokens: Type.Integer(), output_tokens: Type.Integer() },
  { $id: 'Usage', description: 'Tokens as the provider counted them (summed over model calls)' },
);
export const MessageSchema = Type.Object(
  {
    role: Type.Union([Type.Literal('user'), Type.Literal('assistant')]),
    content: Type.Array(Type.Object({ type: Type.String() }, { additionalProperties: true }), {
      description: 'Anthropic-style blocks: `text`, `tool_use` (`id`, `name`, `input`, `input_error`?), `tool_result` (`tool_use_id`, `content`, `is_error`)',
    }),
  },
  { $id: 'Message' },
);

export const TurnSchema = Type.Object(
  {
    id: Id('Server-made turn id (`turn_…`)'),
    session_id: Type.String(),
    kind: Type.Union([Type.Literal('direct'), Type.Literal('prompt')]),
    status: Type.Union(TURN_STATUSES.map((s) => Type.Literal(s)), {
      description: '`awaiting_permission` while a permission request is pending; `awaiting_input` while only questions are',
    }),
    tool_uses: Type.Array(ref(ToolUseSchema)),
    results: Type.Array(ref(ToolResultSchema), {
      description: 'One per finished tool_use, in the order of `tool_uses`',
    }),
    pending: Type.Array(Type.String(), { description: 'Ids of the pending permission requests (`perm_…`) and questions (`q_…`) the turn waits on' }),
    error: Type.Optional(ref(TurnErrorSchema)),
    prompt: Type.Optional(Type.Array(ref(PromptTextBlockSchema), { description: 'Prompt turns: the prompt as posted' })),
    messages: Type.Optional(
      Type.Array(ref(MessageSchema), {
        description:
          'Prompt turns: this turn\'s conversation — the user message (prompt plus hook context), then each assistant message and the user message pairing its tool_uses with their tool_results',
      }),
    ),
    stop_reason: Type.Optional(
      Type.String({ description: 'Prompt turns: why the loop ended (`end_turn`, `max_tokens`, `stop_hook`, … — the model\'s last stop reason otherwise)' }),
    ),
    usage: Type.Optional(ref(UsageSchema)),
    model_calls: Type.Optional(Type.Integer({ description: 'Prompt turns: model calls made' })),
    created_at: Timestamp('Creation time'),
    ended_at: Type.Optional(Timestamp('When the turn reached a final status')),
  },
  { $id: 'Turn' },
);
export type Turn = Static<typeof TurnSchema>;

export const TurnListSchema = Type.Object({ items: Type.Array(ref(TurnSchema)) }, { $id: 'TurnList' });
