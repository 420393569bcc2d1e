// Per-session hooks (SPEC §5): the events a hook can run on and the command or HTTP hooks
// configured for each.
import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from './common.js';
import { RuleString } from './fields.js';

const HookCommand = Type.Object(
  {
    type: Type.Literal('command'),
    command: Type.String({ minLength: 1, maxLength: 8192 }),
    timeout_s: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 600 })),
    network: Type.Optional(
      Type.Boolean({
        description:
          'The hook may connect out through the session\'s egress proxy, under the session\'s network scope (in a session without a network: any public host; deny rules and the tenant\'s policy still apply). Default false: no network',
      }),
    ),
    on_failure: Type.Optional(
      StringEnum(['block', 'continue'], {
        description: 'PreToolUse: when this hook times out or crashes, block the call (default, fail-closed) or go on',
      }),
    ),
  },
  { additionalProperties: false },
);
const HookHttp = Type.Object(
  {
    type: Type.Literal('http'),
    url: Type.String({ format: 'uri', maxLength: 2048 }),
    timeout_s: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 600 })),
    secret: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, writeOnly: true })),
    on_failure: Type.Optional(
      StringEnum(['block', 'continue'], {
        description: 'PreToolUse: when this hook times out or crashes, block the call (default, fail-closed) or go on',
      }),
    ),
  },
  { additionalProperties: false },
);
export const HOOK_EVENTS = [
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'UserPromptSubmit',
  'SessionStart',
  'SessionEnd',
  'Stop',
  'SubagentStart',
  'SubagentStop',
  'StopFailure',
  'PermissionRequest',
  'PermissionDenied',
  'Notification',
  'PreCompact',
  'PostCompact',
  'PostToolBatch',
] as const;
export type HookEventName = (typeof HOOK_EVENTS)[number];
const HookMatcherGroup = Type.Object(
  {
    matcher: Type.Optional(Type.String({ maxLength: 1024 })),
    if: Type.Optional(RuleString),
    hooks: Type.Array(Type.Union([HookCommand, HookHttp]), { minItems: 1, maxItems: 32 }),
  },
  { additionalProperties: false },
);
export const SessionHooksSchema = Type.Partial(
  Type.Object(Object.fromEntries(HOOK_EVENTS.map((e) => [e, Type.Array(HookMatcherGroup, { maxItems: 32 })]))),
  { $id: 'SessionHooks', additionalProperties: false, description: 'Per-session hooks, by event (SPEC §5)' },
);
export type SessionHooks = Static<typeof SessionHooksSchema>;
