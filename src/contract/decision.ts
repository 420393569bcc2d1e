// The permission decision record: what decided about one tool call, why, and about which exact
// input.
import { Type, type Static } from '@sinclair/typebox';
import { ref, StringEnum } from './common.js';
import { Timestamp } from './fields.js';
import { PermissionModeSchema } from './permission.js';

export const DECIDERS = ['rule', 'mode', 'tool', 'read_only', 'protected_path', 'person', 'timeout', 'cancel', 'hook', 'policy'] as const;
export const INPUT_SOURCES = ['call', 'tool', 'approval', 'hook'] as const;

export const DecisionSchema = Type.Object(
  {
    seq: Type.Integer({ minimum: 1, description: 'Per-session order of decisions' }),
    session_id: Type.String(),
    turn_id: Type.String(),
    tool_use_id: Type.String(),
    tool: Type.String(),
    behavior: StringEnum(['allow', 'deny', 'ask']),
    decided_by: StringEnum(DECIDERS, {
      description:
        '`rule`, `mode`, `tool` (its own check), `read_only`, `protected_path`: the evaluation; `person`: a client answered; ' +
        '`timeout`, `cancel`: an ask ended without an answer; `hook`: a PreToolUse hook blocked the call; ' +
        '`policy`: a deny rule of the tenant\'s policy (`disallowed_tools` in NORMA_API_KEYS_FILE)',
    }),
    rules: Type.Array(Type.String(), { description: 'The rule text(s) that decided, if any' }),
    mode: ref(PermissionModeSchema),
    reason: Type.String(),
    input_digest: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the canonical JSON of the input this decision is about' }),
    input_source: StringEnum(INPUT_SOURCES, {
      description: 'Where that input came from: the call itself, or a rewrite by the tool\'s check, an approval\'s updated_input, or a PreToolUse hook',
    }),
    permission_id: Type.Optional(Type.String({ description: 'The permission request this decision opened or resolved' })),
    created_at: Timestamp('When it was decided'),
    hash: Type.Optional(
      Type.String({
        pattern: '^[0-9a-f]{64}$',
        description: 'SHA-256 of the previous decision\'s hash (64 zeros for the first), a newline, and this decision\'s RFC 8785 canonical JSON without `hash`; absent on decisions stored before the chain existed',
      }),
    ),
  },
  { $id: 'Decision', description: 'One permission decision about one tool call: what decided, why, and about which exact input' },
);
export type Decision = Static<typeof DecisionSchema>;

export const DecisionListSchema = Type.Object(
  {
    items: Type.Array(ref(DecisionSchema)),
    next_after: Type.Union([Type.Integer(), Type.Null()], { description: 'Pass as `after` for the next page; null at the end' }),
  },
  { $id: 'DecisionList' },
);
