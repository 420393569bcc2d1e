// Permission modes, the requests a person is asked to answer, and their answers.
import { Type, type Static } from '@sinclair/typebox';
import { Id, OneOf, ref, StringEnum } from './common.js';
import { RuleString, Timestamp } from './fields.js';
import { PermissionPreviewSchema } from './preview.js';

export const PERMISSION_MODES = ['default', 'acceptEdits', 'plan', 'bypassPermissions', 'dontAsk', 'auto'] as const;
export const PermissionModeSchema = StringEnum(PERMISSION_MODES,
  { $id: 'PermissionMode', description: 'SPEC §4 permission modes' },
);
export type PermissionMode = Static<typeof PermissionModeSchema>;

export const PERMISSION_STATUSES = ['pending', 'allowed', 'denied', 'cancelled'] as const;
export type PermissionStatus = (typeof PERMISSION_STATUSES)[number];

export const PermissionRequestSchema = Type.Object(
  {
    id: Id('Server-made permission id (`perm_…`)'),
    session_id: Type.String(),
    turn_id: Type.String(),
    tool_use_id: Type.String(),
    tool: Type.String(),
    input: Type.Unknown({
      description:
        'The input the call would run with if allowed. `tool: "Network"`: `{host, port, scheme}`; `tool: "Budget"`: `{scope (turn, session, tenant), unit (usd, tokens), spent, limit, next_call_max}`',
    }),
    reason: Type.String({ description: 'Why a person is asked' }),
    preview: Type.Optional(ref(PermissionPreviewSchema, 'What the call would do (absent: the tool has none, e.g. Budget)')),
    suggestions: Type.Array(Type.String(), { description: 'Rule strings a client can offer as "always allow"' }),
    status: StringEnum(PERMISSION_STATUSES),
    resolved_by: Type.Optional(
      StringEnum(
        ['client', 'timeout', 'cancel', 'session_closed', 'rule', 'restart'],
        {
          description:
            'Who or what resolved the request; `rule`: a rule added later (remember, PATCH), a mode change or a reloaded tenant policy decided it; ' +
            '`restart`: a connection\'s request (`tool: "Network"`) outstanding when the server stopped, refused',
        },
      ),
    ),
    rules: Type.Optional(Type.Array(Type.String(), { description: 'With resolved_by `rule`: the rule(s) that decided' })),
    answered_by: Type.Optional(Type.String({ description: 'With resolved_by `client`: the name of the API key that answered (absent without keys)' })),
    message: Type.Optional(Type.String({ description: 'Denial message given to the model' })),
    updated_input: Type.Optional(Type.Unknown()),
    remember: Type.Optional(Type.Array(Type.String())),
    mode: Type.Optional(Type.String({ description: 'ExitPlanMode: the mode the approval chose to switch to' })),
    interrupt: Type.Optional(Type.Boolean()),
    created_at: Timestamp('Creation time'),
    resolved_at: Type.Optional(Timestamp('Resolution time')),
  },
  { $id: 'PermissionRequest' },
);
export type PermissionRequest = Static<typeof PermissionRequestSchema>;

export const PermissionListSchema = Type.Object(
  { items: Type.Array(ref(PermissionRequestSchema)) },
  { $id: 'PermissionList' },
);

export const PermissionAllowSchema = Type.Object(
  {
    behavior: Type.Literal('allow'),
    updated_input: Type.Optional(Type.Unknown({ description: 'Run with this input instead (validated again)' })),
    remember: Type.Optional(
      Type.Array(RuleString, { maxItems: 64, description: 'Allow rules to add to the session; a key without `write` may name only the request\'s `suggestions`' }),
    ),
    mode: Type.Optional(
      StringEnum(
        PERMISSION_MODES.filter((m) => m !== 'plan'),
        { description: 'ExitPlanMode only: the mode to switch to; default the mode before plan mode (a key without `write` may choose only that one or a stricter one)' },
      ),
    ),
  },
  { $id: 'PermissionAllow', additionalProperties: false, description: 'Run the call (with `updated_input` if given), optionally remembering allow rules' },
);
export const PermissionDenySchema = Type.Object(
  {
    behavior: Type.Literal('deny'),
    message: Type.Optional(Type.String({ maxLength: 10_000, description: 'Why, for the model (its is_error tool_result says it)' })),
    interrupt: Type.Optional(Type.Boolean({ description: 'Also stop the rest of the turn' })),
  },
  { $id: 'PermissionDeny', additionalProperties: false, description: 'Refuse the call' },
);
export const PermissionResponseSchema = OneOf([ref(PermissionAllowSchema), ref(PermissionDenySchema)], {
  $id: 'PermissionResponse',
  discriminator: 'behavior',
  description: 'Allow (`behavior: "allow"`) or deny (`behavior: "deny"`) the call',
});
export type PermissionResponse = Static<typeof PermissionResponseSchema>;
