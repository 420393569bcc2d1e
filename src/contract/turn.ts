// Turns: what a client posts (direct tool_uses or a prompt) and the turn the server reports,
// with its messages, usage and error.
import { Type, type Static } from '@sinclair/typebox';
import { Id, OneOf, ref, StringEnum } from './common.js';
import { Timestamp } from './fields.js';
import { BudgetSchema, UsageSchema } from './budget.js';
import type { Compaction } from './compaction.js';
import { ContentBlockSchema, ToolResultSchema, ToolUseInputSchema, ToolUseSchema } from './tool.js';

export const TURN_STATUSES = ['running', 'awaiting_permission', 'awaiting_input', 'completed', 'failed', 'cancelled', 'interrupted'] as const;
export type TurnStatus = (typeof TURN_STATUSES)[number];
/** A turn that waits for an answer (a permission request, a question or a client-tool request is pending). */
export const PAUSED_STATUSES: ReadonlySet<TurnStatus> = new Set(['awaiting_permission', 'awaiting_input']);
/** A turn that has not ended: running, or paused for people. */
export const isOpenStatus = (s: TurnStatus): boolean => s === 'running' || PAUSED_STATUSES.has(s);

export const PromptTextBlockSchema = Type.Object(
  { type: Type.Literal('text'), text: Type.String({ minLength: 1 }) },
  { $id: 'PromptTextBlock', additionalProperties: false },
);

export const DirectTurnCreateSchema = Type.Object(
  {
    tool_uses: Type.Array(ToolUseInputSchema, {
      minItems: 1,
      maxItems: 256,
      description: 'The calls to run, in order (read-only ones may run together); each gets exactly one tool_result',
    }),
    // Spelled out (additionalProperties already refuses it) so that generated types refuse a
    // body with both kinds too.
    prompt: Type.Optional(Type.Never({ description: 'Not in a direct turn' })),
  },
  { $id: 'DirectTurnCreate', additionalProperties: false, description: 'A direct turn: the client names the tool calls' },
);
export const PromptTurnCreateSchema = Type.Object(
  {
    prompt: OneOf(
      [Type.Array(ref(PromptTextBlockSchema), { minItems: 1, maxItems: 256 }), Type.String({ minLength: 1, maxLength: 1_000_000 })],
      { description: 'The user message: text, or text blocks' },
    ),
    tool_uses: Type.Optional(Type.Never({ description: 'Not in a prompt turn' })),
    budget: Type.Optional(ref(BudgetSchema, 'A limit on this turn\'s model calls (subagents\' included), on top of the session\'s and the tenant\'s')),
  },
  { $id: 'PromptTurnCreate', additionalProperties: false, description: 'A prompt turn: the server runs the model loop with the session\'s model' },
);
export const TurnCreateSchema = OneOf([ref(DirectTurnCreateSchema), ref(PromptTurnCreateSchema)], {
  $id: 'TurnCreate',
  description: 'A direct turn (`tool_uses`) or a prompt turn (`prompt`): exactly one of the two',
});
export type TurnCreate = Static<typeof TurnCreateSchema>;

export const TurnErrorSchema = Type.Object(
  { code: Type.String(), message: Type.String() },
  { $id: 'TurnError' },
);

export const MessageSchema = Type.Object(
  {
    role: StringEnum(['user', 'assistant']),
    content: Type.Array(ref(ContentBlockSchema), { description: 'Anthropic-style blocks: `text` and `tool_use` (assistant), `text` and `tool_result` (user)' }),
  },
  { $id: 'Message' },
);

export const TurnSchema = Type.Object(
  {
    id: Id('Server-made turn id (`turn_…`)'),
    session_id: Type.String(),
    kind: StringEnum(['direct', 'prompt']),
    status: StringEnum(TURN_STATUSES, {
      description: '`awaiting_permission` while a permission request is pending; `awaiting_input` while only questions or client-tool requests are',
    }),
    tool_uses: Type.Array(ref(ToolUseSchema)),
    results: Type.Array(ref(ToolResultSchema), {
      description: 'One per finished tool_use, in the order of `tool_uses`',
    }),
    pending: Type.Array(Type.String(), { description: 'Ids of the pending permission requests (`perm_…`), questions (`q_…`) and client-tool requests (`ct_…`) the turn waits on' }),
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
    budget: Type.Optional(ref(BudgetSchema, 'Prompt turns: the turn\'s budget as posted, raised by approvals of its `Budget` requests')),
    compaction: Type.Optional(Type.Unsafe<Compaction>({ $ref: 'Compaction#', description: 'Prompt turns: the newest compaction made in (or, on demand, after) this turn' })),
    created_at: Timestamp('Creation time'),
    ended_at: Type.Optional(Timestamp('When the turn reached a final status')),
    rewound_at: Type.Optional(Timestamp('When a rewind with `conversation: true` dropped this turn from the transcript later prompt turns see')),
  },
  { $id: 'Turn' },
);
export type Turn = Static<typeof TurnSchema>;

export const TurnListSchema = Type.Object({ items: Type.Array(ref(TurnSchema)) }, { $id: 'TurnList' });
