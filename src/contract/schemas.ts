// The HTTP contract's shared schemas (API.md). Each has an `$id`, is registered once with
// Fastify and referenced by routes, so the OpenAPI document gets named components.
// Types come from these schemas (`Static<typeof X>`); there is no hand-written twin.
import { LimitValuesSchema } from '../sandbox/limits.js';
import { Type, type Static, type TSchema } from '@sinclair/typebox';

/** A `$ref` to a registered schema that keeps the referenced schema's static type. */
export function ref<T extends TSchema>(schema: T, description?: string) {
  if (schema.$id === undefined) throw new Error('ref() needs a schema with an $id');
  return Type.Unsafe<Static<T>>({ $ref: `${schema.$id}#`, ...(description ? { description } : {}) });
}

export const ID_PATTERN = '^[A-Za-z0-9_-]{1,64}$';
export const Id = (description: string) => Type.String({ pattern: ID_PATTERN, description });
const Timestamp = (description: string) => Type.String({ format: 'date-time', description });

export const ProblemSchema = Type.Object(
  {
    type: Type.String({ description: 'URI reference identifying the problem type' }),
    title: Type.String(),
    status: Type.Integer({ minimum: 400, maximum: 599 }),
    detail: Type.String({ description: 'What went wrong, precisely enough to fix the request' }),
    instance: Type.Optional(Type.String()),
    errors: Type.Optional(
      Type.Array(
        Type.Object({
          location: Type.Optional(Type.String({ description: 'body, query, params or headers' })),
          path: Type.String({ description: 'JSON pointer to the offending value' }),
          message: Type.String(),
        }),
      ),
    ),
  },
  { $id: 'Problem', description: 'RFC 9457 problem details (application/problem+json)' },
);
export type Problem = Static<typeof ProblemSchema>;

export const PERMISSION_MODES = ['default', 'acceptEdits', 'plan', 'bypassPermissions', 'dontAsk', 'auto'] as const;
export const PermissionModeSchema = Type.Union(
  PERMISSION_MODES.map((m) => Type.Literal(m)),
  { $id: 'PermissionMode', description: 'SPEC §4 permission modes' },
);
export type PermissionMode = Static<typeof PermissionModeSchema>;

const RuleString = Type.String({
  minLength: 1,
  maxLength: 1024,
  description:
    'A permission rule: `*`, a tool name, `mcp__server__*`, `Bash(<command pattern>)`, `Read(<path glob>)` / `Edit(<path glob>)` ' +
    '(or Write, MultiEdit, LS, Glob, Grep), or `WebFetch(domain:<host>)`; see the README for the matching rules',
});

export const SessionRuleSchema = Type.Object(
  {
    rule: RuleString,
    behavior: Type.Union([Type.Literal('allow'), Type.Literal('deny'), Type.Literal('ask')]),
    source: Type.Union([Type.Literal('remember'), Type.Literal('patch')], {
      description: '`remember`: added by an approval; `patch`: added by PATCH',
    }),
    added_at: Timestamp('When the rule was added'),
  },
  { $id: 'SessionRule' },
);
export type SessionRule = Static<typeof SessionRuleSchema>;

const HookCommand = Type.Object(
  {
    type: Type.Literal('command'),
    command: Type.String({ minLength: 1, maxLength: 8192 }),
    timeout_s: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 600 })),
    on_failure: Type.Optional(
      Type.Union([Type.Literal('block'), Type.Literal('continue')], {
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
      Type.Union([Type.Literal('block'), Type.Literal('continue')], {
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
    provider: Type.Union([Type.Literal('anthropic'), Type.Literal('openai'), Type.Literal('scripted')]),
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
    provider: Type.String(),
    model: Type.String(),
    base_url: Type.Optional(Type.String()),
    has_api_key: Type.Boolean({ description: 'Whether a key is configured; the key itself is never echoed' }),
    max_tokens: Type.Integer(),
    max_turns: Type.Integer(),
    source: Type.Union([Type.Literal('session'), Type.Literal('server')], {
      description: '`session`: given at creation; `server`: the server default (NORMA_MODEL_*)',
    }),
    script_replies: Type.Optional(Type.Integer({ description: 'scripted: how many replies the script has' })),
  },
  { $id: 'ModelConfig' },
);
export type ModelConfig = Static<typeof ModelConfigSchema>;

export const SessionCreateSchema = Type.Object(
  {
    workspace: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 4096,
        description: 'An existing directory under NORMA_WORKSPACE_ROOT; default: a fresh directory made by the server',
      }),
    ),
    permission_mode: Type.Optional(ref(PermissionModeSchema)),
    allowed_tools: Type.Optional(Type.Array(RuleString, { maxItems: 256 })),
    disallowed_tools: Type.Optional(Type.Array(RuleString, { maxItems: 256 })),
    ask_rules: Type.Optional(Type.Array(RuleString, { maxItems: 256 })),
    tools: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 128 }), {
        maxItems: 128,
        description: 'Tool names to install; default: the default set',
      }),
    ),
    hooks: Type.Optional(ref(SessionHooksSchema)),
    output_cap_chars: Type.Optional(Type.Integer({ minimum: 100, maximum: 10_000_000, default: 30000 })),
    permission_timeout_s: Type.Optional(
      Type.Number({ exclusiveMinimum: 0, maximum: 7 * 24 * 3600, description: 'Deny a pending ask after this long' }),
    ),
    model: Type.Optional(ref(ModelConfigInputSchema)),
    system_prompt: Type.Optional(Type.String({ maxLength: 200_000 })),
    sandbox_network: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'Give shell commands HTTP and HTTPS access through the session\'s egress proxy (off by default): the egress guard applies ' +
          '(private, loopback and metadata addresses refused unless NORMA_EGRESS_ALLOW opens them; the server\'s own addresses always), ' +
          'and every connection is an egress.request event. No other protocol leaves the sandbox. Needs socat on the server. ' +
          'With NORMA_SANDBOX=off commands always have the host\'s network.',
      }),
    ),
    limits: Type.Optional(
      Type.Partial(LimitValuesSchema, {
        additionalProperties: false,
        description: 'Lower resource limits for this session\'s processes than the operator\'s (NORMA_SANDBOX_*); a higher value is refused',
      }),
    ),
  },
  { $id: 'SessionCreate', additionalProperties: false },
);
export type SessionCreate = Static<typeof SessionCreateSchema>;

export const SessionPatchSchema = Type.Object(
  {
    permission_mode: Type.Optional(ref(PermissionModeSchema)),
    allowed_tools: Type.Optional(Type.Array(RuleString, { maxItems: 256 })),
    disallowed_tools: Type.Optional(Type.Array(RuleString, { maxItems: 256 })),
    ask_rules: Type.Optional(Type.Array(RuleString, { maxItems: 256 })),
    add_rules: Type.Optional(
      Type.Array(
        Type.Object(
          { rule: RuleString, behavior: Type.Union([Type.Literal('allow'), Type.Literal('deny'), Type.Literal('ask')]) },
          { additionalProperties: false },
        ),
        { maxItems: 256, description: 'Session rules to add' },
      ),
    ),
    remove_rules: Type.Optional(Type.Array(RuleString, { maxItems: 256, description: 'Session rules to remove' })),
  },
  { $id: 'SessionPatch', additionalProperties: false, minProperties: 1 },
);
export type SessionPatch = Static<typeof SessionPatchSchema>;

export const SessionLimitsSchema = Type.Composite(
  [
    Type.Object({
      enforcement: Type.Union([Type.Literal('cgroup2'), Type.Literal('cgroup1'), Type.Literal('rlimit'), Type.Literal('none')], {
        description:
          'How the limits are enforced: a cgroup (v2 or v1) per session, per-process rlimits where the host delegates no cgroup, or none (NORMA_SANDBOX=off)',
      }),
    }),
    LimitValuesSchema,
  ],
  { $id: 'SessionLimits', description: 'The resource limits of the session\'s sandboxed processes' },
);
export type SessionLimits = Static<typeof SessionLimitsSchema>;

export const SessionSchema = Type.Object(
  {
    id: Id('Server-made session id (`ses_…`)'),
    status: Type.Union([Type.Literal('active'), Type.Literal('closed')]),
    workspace: Type.String({ description: 'Absolute path of the session workspace (the file tools\' boundary)' }),
    workspace_owned: Type.Boolean({ description: 'Whether the server made the workspace' }),
    permission_mode: ref(PermissionModeSchema),
    allowed_tools: Type.Array(Type.String()),
    disallowed_tools: Type.Array(Type.String()),
    ask_rules: Type.Array(Type.String()),
    rules: Type.Array(ref(SessionRuleSchema), { description: 'Session rules added by approvals (`remember`) or PATCH' }),
    tools: Type.Array(Type.String(), { description: 'Installed tool names (the lookup set)' }),
    output_cap_chars: Type.Integer(),
    permission_timeout_s: Type.Union([Type.Number(), Type.Null()]),
    sandbox: Type.Union([Type.Literal('bwrap'), Type.Literal('off')], {
      description: 'The process sandbox mode for this session\'s shell tools and command hooks',
    }),
    hook_events: Type.Array(Type.String(), { description: 'Events with per-session hooks configured' }),
    model: Type.Union([ref(ModelConfigSchema), Type.Null()]),
    system_prompt: Type.Union([Type.String(), Type.Null()]),
    sandbox_network: Type.Boolean({ description: 'Whether shell commands have HTTP(S) access through the session\'s egress proxy' }),
    limits: ref(SessionLimitsSchema),
    active_turn_id: Type.Union([Type.String(), Type.Null()]),
    warnings: Type.Array(Type.String()),
    created_at: Timestamp('Creation time'),
    closed_at: Type.Union([Timestamp('Close time'), Type.Null()]),
  },
  { $id: 'Session' },
);
export type Session = Static<typeof SessionSchema>;

export const SessionListSchema = Type.Object(
  {
    items: Type.Array(ref(SessionSchema)),
    next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `cursor` for the next page' }),
  },
  { $id: 'SessionList' },
);

export const ToolDefinitionSchema = Type.Object(
  {
    name: Type.String(),
    description: Type.String(),
    input_schema: Type.Unknown({ description: 'JSON Schema of the tool input' }),
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
  { type: Type.Literal('tool_use'), id: Type.String(), name: Type.String(), input: Type.Unknown() },
  { $id: 'ToolUse' },
);
export type ToolUse = Static<typeof ToolUseSchema>;

export const TextBlockSchema = Type.Object(
  { type: Type.Literal('text'), text: Type.String() },
  { $id: 'TextBlock' },
);
export type TextBlock = Static<typeof TextBlockSchema>;

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
    content: Type.Array(ref(TextBlockSchema)),
    truncation: Type.Optional(ref(TruncationSchema)),
    truncations: Type.Optional(
      Type.Array(ref(TruncationSchema), { description: 'Every capped block, when more than one was capped' }),
    ),
  },
  { $id: 'ToolResult' },
);
export type ToolResult = Static<typeof ToolResultSchema>;

export const TURN_STATUSES = ['running', 'awaiting_permission', 'completed', 'failed', 'cancelled', 'interrupted'] as const;
export type TurnStatus = (typeof TURN_STATUSES)[number];

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
    status: Type.Union(TURN_STATUSES.map((s) => Type.Literal(s))),
    tool_uses: Type.Array(ref(ToolUseSchema)),
    results: Type.Array(ref(ToolResultSchema), {
      description: 'One per finished tool_use, in the order of `tool_uses`',
    }),
    pending: Type.Array(Type.String(), { description: 'Ids of pending permission requests' }),
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

export const PERMISSION_STATUSES = ['pending', 'allowed', 'denied', 'cancelled'] as const;
export type PermissionStatus = (typeof PERMISSION_STATUSES)[number];

export const PermissionRequestSchema = Type.Object(
  {
    id: Id('Server-made permission id (`perm_…`)'),
    session_id: Type.String(),
    turn_id: Type.String(),
    tool_use_id: Type.String(),
    tool: Type.String(),
    input: Type.Unknown({ description: 'The input the call would run with if allowed' }),
    reason: Type.String({ description: 'Why a person is asked' }),
    suggestions: Type.Array(Type.String(), { description: 'Rule strings a client can offer as "always allow"' }),
    status: Type.Union(PERMISSION_STATUSES.map((s) => Type.Literal(s))),
    resolved_by: Type.Optional(
      Type.Union(
        [Type.Literal('client'), Type.Literal('timeout'), Type.Literal('cancel'), Type.Literal('session_closed'), Type.Literal('rule')],
        { description: 'Who or what resolved the request; `rule`: a rule added later (remember, PATCH) or a mode change decided it' },
      ),
    ),
    rules: Type.Optional(Type.Array(Type.String(), { description: 'With resolved_by `rule`: the rule(s) that decided' })),
    message: Type.Optional(Type.String({ description: 'Denial message given to the model' })),
    updated_input: Type.Optional(Type.Unknown()),
    remember: Type.Optional(Type.Array(Type.String())),
    interrupt: Type.Optional(Type.Boolean()),
    created_at: Timestamp('Creation time'),
    resolved_at: Type.Optional(Timestamp('Resolution time')),
  },
  { $id: 'PermissionRequest' },
);
export type PermissionRequest = Static<typeof PermissionRequestSchema>;

export const DECIDERS = ['rule', 'mode', 'tool', 'read_only', 'protected_path', 'person', 'timeout', 'cancel', 'hook'] as const;
export const INPUT_SOURCES = ['call', 'tool', 'approval', 'hook'] as const;

export const DecisionSchema = Type.Object(
  {
    seq: Type.Integer({ minimum: 1, description: 'Per-session order of decisions' }),
    session_id: Type.String(),
    turn_id: Type.String(),
    tool_use_id: Type.String(),
    tool: Type.String(),
    behavior: Type.Union([Type.Literal('allow'), Type.Literal('deny'), Type.Literal('ask')]),
    decided_by: Type.Union(DECIDERS.map((d) => Type.Literal(d)), {
      description:
        '`rule`, `mode`, `tool` (its own check), `read_only`, `protected_path`: the evaluation; `person`: a client answered; ' +
        '`timeout`, `cancel`: an ask ended without an answer; `hook`: a PreToolUse hook blocked the call',
    }),
    rules: Type.Array(Type.String(), { description: 'The rule text(s) that decided, if any' }),
    mode: ref(PermissionModeSchema),
    reason: Type.String(),
    input_digest: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the canonical JSON of the input this decision is about' }),
    input_source: Type.Union(INPUT_SOURCES.map((d) => Type.Literal(d)), {
      description: 'Where that input came from: the call itself, or a rewrite by the tool\'s check, an approval\'s updated_input, or a PreToolUse hook',
    }),
    permission_id: Type.Optional(Type.String({ description: 'The permission request this decision opened or resolved' })),
    created_at: Timestamp('When it was decided'),
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

export const PermissionListSchema = Type.Object(
  { items: Type.Array(ref(PermissionRequestSchema)) },
  { $id: 'PermissionList' },
);

export const PermissionResponseSchema = Type.Union(
  [
    Type.Object(
      {
        behavior: Type.Literal('allow'),
        updated_input: Type.Optional(Type.Unknown({ description: 'Run with this input instead (validated again)' })),
        remember: Type.Optional(Type.Array(RuleString, { maxItems: 64, description: 'Allow rules to add to the session' })),
      },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        behavior: Type.Literal('deny'),
        message: Type.Optional(Type.String({ maxLength: 10_000 })),
        interrupt: Type.Optional(Type.Boolean({ description: 'Also stop the rest of the turn' })),
      },
      { additionalProperties: false },
    ),
  ],
  { $id: 'PermissionResponse' },
);
export type PermissionResponse = Static<typeof PermissionResponseSchema>;

export const OutputSchema = Type.Object(
  {
    id: Id('Server-made output id (`out_…`)'),
    session_id: Type.String(),
    turn_id: Type.String(),
    tool_use_id: Type.String(),
    tool: Type.String(),
    block_index: Type.Integer({ minimum: 0, description: 'The capped block of the tool_result this output completes' }),
    bytes: Type.Integer({ minimum: 0, description: 'Size of the full output in UTF-8 bytes' }),
    chars: Type.Integer({ minimum: 0, description: 'Length of the full output in Unicode code points' }),
    sha256: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'SHA-256 (hex) of the full output, computed while it was written' }),
    status: Type.Union([Type.Literal('available'), Type.Literal('expired')], {
      description: '`expired`: removed by retention (age or the per-session byte budget); the record stays as evidence',
    }),
    created_at: Timestamp('When the output was written'),
    expired_at: Type.Optional(Timestamp('When retention removed the file')),
  },
  { $id: 'Output', description: 'A spill file: the full text of a capped tool_result block, with its provenance' },
);
export type Output = Static<typeof OutputSchema>;
export const OutputListSchema = Type.Array(ref(OutputSchema), { $id: 'OutputList' });

export const HealthSchema = Type.Object({ status: Type.Literal('ok') }, { $id: 'Health' });
export const ReadinessSchema = Type.Object(
  {
    status: Type.Union([Type.Literal('ready'), Type.Literal('unready')]),
    checks: Type.Array(
      Type.Object({
        name: Type.String(),
        ok: Type.Boolean(),
        required: Type.Boolean({ description: 'Whether readiness depends on this check' }),
        detail: Type.String(),
      }),
    ),
  },
  { $id: 'Readiness' },
);
export type Readiness = Static<typeof ReadinessSchema>;
