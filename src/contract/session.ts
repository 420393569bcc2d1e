// Sessions: what a client creates and patches, the resource the server reports, its limits and
// its session rules.
import { LimitValuesSchema } from './limits.js';
import { Type, type Static } from '@sinclair/typebox';
import { Id, ref, StringEnum } from './common.js';
import { RuleString, Timestamp } from './fields.js';
import { SessionHooksSchema } from './hooks.js';
import { ModelConfigInputSchema, ModelConfigSchema } from './model.js';
import { PermissionModeSchema } from './permission.js';
import { InstructionFileSchema } from './memory.js';
import { McpServerPublicSchema, McpServersSchema } from './mcp.js';
import { PolicyPublicSchema } from './tenant.js';
import { ForkedFromSchema } from './checkpoint.js';
import { SecretsSchema } from './secrets.js';
import { BudgetSchema, SessionUsageSchema } from './budget.js';
import { CompactionSettingsSchema } from './compaction.js';
import { ClientToolDefinitionSchema, MAX_CLIENT_TOOLS } from './client-tool.js';

/** A tool name or `*` pattern in `deferred_tools`. */
export const DEFERRED_PATTERN = '^[A-Za-z0-9_*-]{1,128}$';

/** A label's key: `team`, `app.kubernetes.io/name`, `env-1` (no `:`, which separates key and value in `?label=`). */
export const LABEL_KEY_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._/-]{0,62}$';
export const MAX_LABELS = 32;

export const SessionNameSchema = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: '^[^\\u0000-\\u001f\\u007f]*$',
  description: 'A name for people (free text, no control characters, at most 200 characters)',
});
export const SessionLabelsSchema = Type.Record(
  Type.String({ pattern: LABEL_KEY_PATTERN }),
  Type.String({ maxLength: 256, pattern: '^[^\\u0000-\\u001f\\u007f]*$' }),
  {
    maxProperties: MAX_LABELS,
    additionalProperties: false,
    description: `Labels (\`{key: value}\`, at most ${MAX_LABELS}) that \`GET /v1/sessions?label=key:value\` filters on; keys: letters, digits, \`._/-\` (at most 63), values: text of at most 256 characters`,
  },
);

/** A memory store's name (`memory_store`). */
export const MEMORY_STORE_PATTERN = '^[A-Za-z0-9_-]{1,64}$';

export const SessionRuleSchema = Type.Object(
  {
    rule: RuleString,
    behavior: StringEnum(['allow', 'deny', 'ask']),
    source: StringEnum(['remember', 'patch', 'tool'], {
      description: '`remember`: added by an approval; `patch`: added by PATCH; `tool`: added by a tool call\'s result (its effects)',
    }),
    added_at: Timestamp('When the rule was added'),
  },
  { $id: 'SessionRule' },
);
export type SessionRule = Static<typeof SessionRuleSchema>;

export const SessionCreateSchema = Type.Object(
  {
    workspace: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 4096,
        description: 'An existing directory under NORMA_WORKSPACE_ROOT; default: a fresh directory made by the server',
      }),
    ),
    name: Type.Optional(SessionNameSchema),
    labels: Type.Optional(SessionLabelsSchema),
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
    question_timeout_s: Type.Optional(
      Type.Number({ exclusiveMinimum: 0, maximum: 7 * 24 * 3600, description: 'Dismiss a pending AskUser question after this long (the call is told it timed out)' }),
    ),
    memory_store: Type.Optional(
      Type.String({
        pattern: MEMORY_STORE_PATTERN,
        description: 'A named memory store for the Memory tool, shared by the sessions that name it; default: a store private to this session',
      }),
    ),
    skills: Type.Optional(
      Type.Array(Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,63}$' }), {
        maxItems: 200,
        description: 'Skills the session may use (from NORMA_SKILLS_DIR and the workspace\'s `.norma/skills/`); default: every valid one found',
      }),
    ),
    model: Type.Optional(ref(ModelConfigInputSchema)),
    system_prompt: Type.Optional(Type.String({ maxLength: 200_000 })),
    checkpoints: Type.Optional(
      Type.Boolean({
        description:
          'Record the workspace at the start of every turn and around every call that may change it, so any change can be seen (GET …/changes) ' +
          'and taken back (POST …/rewind); default: the operator\'s NORMA_CHECKPOINTS (on)',
      }),
    ),
    sandbox_network: Type.Optional(
      Type.Union([Type.Boolean(), StringEnum(['rules', 'ask'])], {
        description:
          'The network of the session\'s processes (Bash, background tasks, PTY shells), through its egress proxy: `false` (default) none; ' +
          '`true` any public host over HTTP and HTTPS; `"rules"` only hosts a `Network(domain:…)` allow rule names; `"ask"` hosts no rule decides are asked about ' +
          '(a permission request with `tool: "Network"` while the connection waits). Deny rules and the tenant\'s policy apply in every mode; other TCP needs a rule that names host and port. ' +
          'The egress guard applies (private, loopback and metadata addresses refused unless NORMA_EGRESS_ALLOW opens them; the server\'s own addresses always); ' +
          'every connection is an egress.request event. Needs the process sandbox and socat on the server.',
      }),
    ),
    secrets: Type.Optional(SecretsSchema),
    budget: Type.Optional(ref(BudgetSchema, 'A limit on all the session\'s model calls (every turn\'s, subagents\' included)')),
    compaction: Type.Optional(ref(CompactionSettingsSchema)),
    mcp_servers: Type.Optional(McpServersSchema),
    client_tools: Type.Optional(
      Type.Array(ref(ClientToolDefinitionSchema), {
        maxItems: MAX_CLIENT_TOOLS,
        description:
          `Tools the client runs (at most ${MAX_CLIENT_TOOLS}): the model may call them; a call waits (turn \`awaiting_input\`, event \`client_tool.requested\`) ` +
          'until the client answers with POST …/client-tools/{request_id}. Rules and hooks apply as to any tool. Fixed for the session\'s life (a fork keeps them)',
      }),
    ),
    deferred_tools: Type.Optional(
      Type.Array(Type.String({ pattern: DEFERRED_PATTERN }), {
        maxItems: 128,
        description:
          'Tools kept out of the schemas a model sees (names or `*` patterns: `mcp__*`, `mcp__github__*`, `WebFetch`): found with SearchExtraTools, ' +
          'run by name or with ExecuteExtraTool once unlocked. Installs SearchExtraTools and ExecuteExtraTool',
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
    name: Type.Optional(Type.Union([SessionNameSchema, Type.Null()], { description: 'The session\'s new name (null: none)' })),
    labels: Type.Optional(SessionLabelsSchema),
    permission_mode: Type.Optional(ref(PermissionModeSchema)),
    allowed_tools: Type.Optional(Type.Array(RuleString, { maxItems: 256 })),
    disallowed_tools: Type.Optional(Type.Array(RuleString, { maxItems: 256 })),
    ask_rules: Type.Optional(Type.Array(RuleString, { maxItems: 256 })),
    add_rules: Type.Optional(
      Type.Array(
        Type.Object(
          { rule: RuleString, behavior: StringEnum(['allow', 'deny', 'ask']) },
          { additionalProperties: false },
        ),
        { maxItems: 256, description: 'Session rules to add' },
      ),
    ),
    remove_rules: Type.Optional(Type.Array(RuleString, { maxItems: 256, description: 'Session rules to remove' })),
    compaction: Type.Optional(ref(CompactionSettingsSchema, 'Replaces the session\'s compaction settings')),
    budget: Type.Optional(
      Type.Union([ref(BudgetSchema), Type.Null()], { description: 'The session\'s new budget (replacing the old one; null: none). A pending `Budget` request of the session\'s is decided again under it' }),
    ),
  },
  { $id: 'SessionPatch', additionalProperties: false, minProperties: 1 },
);
export type SessionPatch = Static<typeof SessionPatchSchema>;

export const SessionLimitsSchema = Type.Composite(
  [
    Type.Object({
      enforcement: StringEnum(['cgroup2', 'cgroup1', 'rlimit', 'none'], {
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
    status: StringEnum(['active', 'closed']),
    name: Type.Union([Type.String(), Type.Null()], { description: 'The session\'s name for people (null: none)' }),
    labels: Type.Record(Type.String(), Type.String(), { description: 'The session\'s labels' }),
    pending: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: 'Permission requests and questions of the session waiting for a person now (in GET /v1/sessions/{id} and the list; GET /v1/pending lists them)',
      }),
    ),
    tenant: Type.String({ description: 'The tenant the session belongs to (the key that created it); other tenants\' keys do not see it' }),
    policy: Type.Union([ref(PolicyPublicSchema), Type.Null()], {
      description: 'The tenant\'s policy as it is now: limits the session cannot loosen (null: none)',
    }),
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
    sandbox: StringEnum(['bwrap', 'off'], {
      description: 'The process sandbox mode for this session\'s shell tools and command hooks',
    }),
    hook_events: Type.Array(Type.String(), { description: 'Events with per-session hooks configured' }),
    question_timeout_s: Type.Union([Type.Number(), Type.Null()]),
    mode_before_plan: Type.Union([ref(PermissionModeSchema), Type.Null()], {
      description: 'In plan mode: the mode ExitPlanMode returns to when the approval names none',
    }),
    memory_store: Type.Union([Type.String(), Type.Null()], { description: 'The named memory store; null: the session\'s private one' }),
    skills: Type.Array(Type.String(), { description: 'Skills the session may use (see GET …/skills)' }),
    used_skills: Type.Array(Type.String(), { description: 'Skills invoked so far: their folders are readable by Read, Glob and Grep' }),
    unlocked_tools: Type.Array(Type.String(), { description: 'Deferred tools unlocked so far (by a skill\'s allowed-tools or SearchExtraTools); durable' }),
    deferred_tools: Type.Array(Type.String(), { description: 'Names and patterns of the session\'s deferred tools' }),
    client_tools: Type.Array(Type.String(), { description: 'The names of the tools the session\'s client runs (`client_tools`; their definitions: GET …/tools)' }),
    mcp_servers: Type.Record(Type.String(), ref(McpServerPublicSchema), {
      description: 'The session\'s MCP servers (its own and the operator\'s), without env or header values; their state: GET …/mcp',
    }),
    instructions: Type.Array(ref(InstructionFileSchema), {
      description: 'Instruction files at the workspace root that join the system prompt of prompt turns (as last loaded)',
    }),
    model: Type.Union([ref(ModelConfigSchema), Type.Null()]),
    system_prompt: Type.Union([Type.String(), Type.Null()]),
    sandbox_network: Type.Union([Type.Boolean(), StringEnum(['rules', 'ask'])], { description: 'The network of the session\'s processes: false, true (any public host), "rules" or "ask"' }),
    secret_names: Type.Array(Type.String(), { description: 'The secrets the session\'s processes may use (the operator\'s, the tenant\'s and its own), by name; values are never shown' }),
    budget: Type.Union([ref(BudgetSchema), Type.Null()], { description: 'The limit on the session\'s model calls (null: none)' }),
    usage: ref(SessionUsageSchema),
    compaction: Type.Object(
      { auto: Type.Boolean(), threshold: Type.Number() },
      { description: 'How the conversation of prompt turns is compacted: automatically past `threshold` of the context window, or on demand (POST …/compact)' },
    ),
    checkpoints: Type.Boolean({ description: 'Whether the session records checkpoints of its workspace (GET …/checkpoints)' }),
    forked_from: Type.Union([ref(ForkedFromSchema), Type.Null()], { description: 'The session and checkpoint this one was forked from (POST …/fork); null: not a fork' }),
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
