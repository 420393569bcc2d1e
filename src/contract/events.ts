// SSE event payloads (API.md "Events"). Each type is a named OpenAPI component; `Event` is their union.
import { Type, type Static, type TProperties } from '@sinclair/typebox';
import { StringEnum } from './common.js';
import { CallChangesSchema } from './checkpoint.js';
import { ChainExportSchema } from './evidence.js';
import { COMPACTION_TRIGGERS, CompactionEventFacts } from './compaction.js';
import {
  DecisionSchema,
  MessageSchema,
  UsageSchema,
  OutputSchema,
  PermissionRequestSchema,
  QuestionSchema,
  ClientToolRequestSchema,
  SessionSchema,
  TodoItemSchema,
  TodoListSchema,
  ToolResultSchema,
  ToolUseSchema,
  TurnSchema,
  ref,
  OneOf,
} from './schemas.js';

function eventSchema<T extends string, P extends TProperties>(type: T, id: string, description: string, props: P) {
  return Type.Object(
    {
      type: Type.Literal(type),
      session_id: Type.String(),
      seq: Type.Integer({
        minimum: 0,
        description: 'Per-session sequence number (the SSE `id`); live-only events repeat the last durable seq',
      }),
      time: Type.String({ format: 'date-time' }),
      hash: Type.Optional(
        Type.String({
          pattern: '^[0-9a-f]{64}$',
          description:
            'Durable events: SHA-256 of the previous event\'s hash (64 zeros for the first), a newline, and this event\'s RFC 8785 canonical JSON without `hash` (GET …/verify checks it). Absent on live-only events and on events stored before the chain existed',
        }),
      ),
      ...props,
    },
    { $id: id, description },
  );
}

export const EVENT_SCHEMAS = [
  eventSchema('session.created', 'EventSessionCreated', 'The session was created', { session: ref(SessionSchema) }),
  eventSchema('session.updated', 'EventSessionUpdated', 'Mode, rules, unlocks or used skills changed (PATCH, `remember`, a tool\'s result, ExitPlanMode\'s approval)', {
    session: ref(SessionSchema),
  }),
  eventSchema('session.closed', 'EventSessionClosed', 'The session was closed; the final event of a session', {
    reason: Type.String(),
  }),
  eventSchema('turn.started', 'EventTurnStarted', 'A turn began', {
    turn_id: Type.String(),
    kind: StringEnum(['direct', 'prompt']),
    tool_uses: Type.Array(ref(ToolUseSchema), { description: 'Direct turns: the calls; prompt turns: empty (calls arrive with `message.completed`)' }),
    prompt: Type.Optional(Type.Array(Type.Object({ type: Type.Literal('text'), text: Type.String() }))),
  }),
  eventSchema('tool.started', 'EventToolStarted', 'A tool call passed validation, permission and hooks and is running', {
    turn_id: Type.String(),
    parent_tool_use_id: Type.Optional(Type.String({ description: 'Set for a subagent\'s own calls and messages: the Agent call they belong to' })),
    tool_use_id: Type.String(),
    tool: Type.String(),
    input: Type.Unknown(),
  }),
  eventSchema('tool.progress', 'EventToolProgress', 'Live output of a running call (live-only: not replayed)', {
    turn_id: Type.String(),
    parent_tool_use_id: Type.Optional(Type.String({ description: 'Set for a subagent\'s own calls and messages: the Agent call they belong to' })),
    tool_use_id: Type.String(),
    chunk: Type.String(),
  }),
  eventSchema('permission.requested', 'EventPermissionRequested', 'A call waits for a person\'s decision', {
    turn_id: Type.String(),
    permission: ref(PermissionRequestSchema),
  }),
  eventSchema('permission.resolved', 'EventPermissionResolved', 'A permission request was answered, timed out or cancelled', {
    turn_id: Type.String(),
    permission: ref(PermissionRequestSchema),
  }),
  eventSchema('question.asked', 'EventQuestionAsked', 'A call (AskUser) waits for a person to answer questions', {
    turn_id: Type.String(),
    question: ref(QuestionSchema),
  }),
  eventSchema('question.answered', 'EventQuestionAnswered', 'A question was answered, dismissed, timed out or cancelled (its `status` says which)', {
    turn_id: Type.String(),
    question: ref(QuestionSchema),
  }),
  eventSchema('client_tool.requested', 'EventClientToolRequested', 'A call of a client tool waits for the client to run it and answer (POST …/client-tools/{request_id})', {
    turn_id: Type.String(),
    request: ref(ClientToolRequestSchema),
  }),
  eventSchema('client_tool.resolved', 'EventClientToolResolved', 'A client-tool request was answered, timed out or cancelled (its `status` says which); the answer itself is the call\'s tool_result (tool.completed)', {
    turn_id: Type.String(),
    request: ref(ClientToolRequestSchema),
  }),
  eventSchema('todo.updated', 'EventTodoUpdated', 'TodoWrite replaced the session\'s todo list', {
    turn_id: Type.String(),
    tool_use_id: Type.String(),
    items: Type.Array(ref(TodoItemSchema)),
    updated_at: Type.String({ format: 'date-time' }),
  }),
  eventSchema('tool.completed', 'EventToolCompleted', 'A call ended; carries its paired tool_result', {
    turn_id: Type.String(),
    parent_tool_use_id: Type.Optional(Type.String({ description: 'Set for a subagent\'s own calls and messages: the Agent call they belong to' })),
    tool_use_id: Type.String(),
    tool: Type.String(),
    result: ref(ToolResultSchema),
    changes: Type.Optional(ref(CallChangesSchema, 'A call that may change the workspace, in a session with checkpoints: what it changed')),
  }),
  eventSchema('task.started', 'EventTaskStarted', 'A background task (Bash run_in_background) started', {
    task_id: Type.String(),
    command: Type.String(),
    turn_id: Type.String(),
    tool_use_id: Type.String(),
  }),
  eventSchema('task.completed', 'EventTaskCompleted', 'A background task ended (exited, was stopped, or the session closed)', {
    task_id: Type.String(),
    status: StringEnum(['exited', 'stopped', 'failed']),
    exit_code: Type.Union([Type.Integer(), Type.Null()]),
    signal: Type.Union([Type.String(), Type.Null()]),
    output_bytes: Type.Integer({ minimum: 0 }),
  }),
  eventSchema('turn.completed', 'EventTurnCompleted', 'Every tool_use of the turn has its tool_result', {
    turn: ref(TurnSchema),
  }),
  eventSchema('turn.failed', 'EventTurnFailed', 'The turn failed; unfinished calls got error results', {
    turn: ref(TurnSchema),
  }),
  eventSchema('turn.cancelled', 'EventTurnCancelled', 'The turn was cancelled or interrupted by a denial', {
    turn: ref(TurnSchema),
  }),
  eventSchema(
    'turn.interrupted',
    'EventTurnInterrupted',
    'The server stopped under the turn (shutdown, crash): calls that were running or had not started got error results',
    { turn: ref(TurnSchema) },
  ),
  eventSchema('turn.resumed', 'EventTurnResumed', 'After a restart, a turn paused on permission requests, questions or client-tool requests is live again; they can be answered', {
    turn_id: Type.String(),
    pending: Type.Array(Type.String(), { description: 'The permission requests, questions and client-tool requests it waits for' }),
  }),
  eventSchema('hook.completed', 'EventHookCompleted', 'A hook ran (its decision and rewrite, if any); part of the audit trail', {
    hook: Type.String({ description: 'The hook: its place in the session\'s `hooks` (e.g. `hooks.PreToolUse[0].hooks[0]`) or an operator hook\'s name' }),
    kind: StringEnum(['in-process', 'command', 'http']),
    event: Type.String({ description: 'The hook event' }),
    turn_id: Type.Optional(Type.String()),
    tool_use_id: Type.Optional(Type.String()),
    duration_ms: Type.Integer({ minimum: 0 }),
    outcome: StringEnum(['ok', 'blocked']),
    decision: Type.Optional(StringEnum(['allow', 'deny', 'ask'])),
    rewrite_digest: Type.Optional(Type.String({ description: 'SHA-256 of the input the hook asked to run with' })),
  }),
  eventSchema('hook.failed', 'EventHookFailed', 'A hook timed out, crashed, exited with an error status or printed invalid output', {
    hook: Type.String(),
    kind: StringEnum(['in-process', 'command', 'http']),
    event: Type.String(),
    turn_id: Type.Optional(Type.String()),
    tool_use_id: Type.Optional(Type.String()),
    duration_ms: Type.Integer({ minimum: 0 }),
    outcome: StringEnum(['error', 'failed'], {
      description: '`error`: reported, the chain went on; `failed` (timeout, crash): in PreToolUse the call was blocked (fail-closed)',
    }),
    error: Type.String(),
  }),
  eventSchema('message.delta', 'EventMessageDelta', 'Assistant text as the model streams it (prompt turns; live-only: not replayed)', {
    turn_id: Type.String(),
    parent_tool_use_id: Type.Optional(Type.String({ description: 'Set for a subagent\'s own calls and messages: the Agent call they belong to' })),
    message_index: Type.Integer({ minimum: 0, description: 'Position of the assistant message in the turn\'s `messages`' }),
    block_index: Type.Integer({ minimum: 0, description: 'Position of the text block in that message' }),
    text: Type.String(),
    reset: Type.Optional(
      Type.Boolean({ description: 'The model call is being retried: drop the text streamed so far for this message' }),
    ),
  }),
  eventSchema('compaction.started', 'EventCompactionStarted', 'A compaction of the conversation began (prompt sessions)', {
    turn_id: Type.Union([Type.String(), Type.Null()], { description: 'The turn it happens in; null: on demand between turns' }),
    compaction_id: Type.String(),
    trigger: StringEnum(COMPACTION_TRIGGERS),
    tokens_before: Type.Integer({ minimum: 0 }),
  }),
  eventSchema('compaction.completed', 'EventCompactionCompleted', 'A compaction is in force: what it left out and what it kept; part of the audit trail (the full transcript stays in the turns)', {
    turn_id: Type.String({ description: 'The turn it is recorded on (its `compaction`)' }),
    ...CompactionEventFacts,
  }),
  eventSchema('compaction.failed', 'EventCompactionFailed', 'A compaction could not be made; the conversation is as it was', {
    turn_id: Type.Union([Type.String(), Type.Null()]),
    compaction_id: Type.String(),
    trigger: StringEnum(COMPACTION_TRIGGERS),
    tokens_before: Type.Integer({ minimum: 0 }),
    reason: Type.String(),
  }),
  eventSchema('thinking.delta', 'EventThinkingDelta', 'The model\'s thinking as it streams (model.thinking; prompt turns; live-only: not replayed, the whole block is in `message.completed`)', {
    turn_id: Type.String(),
    parent_tool_use_id: Type.Optional(Type.String()),
    message_index: Type.Integer({ minimum: 0 }),
    block_index: Type.Integer({ minimum: 0, description: 'Position of the thinking block in that message' }),
    text: Type.String(),
  }),
  eventSchema('message.completed', 'EventMessageCompleted', 'A model call finished: the whole assistant message (prompt turns)', {
    turn_id: Type.String(),
    parent_tool_use_id: Type.Optional(Type.String({ description: 'Set for a subagent\'s own calls and messages: the Agent call they belong to' })),
    message_index: Type.Integer({ minimum: 0 }),
    message: ref(MessageSchema),
    stop_reason: Type.String(),
    usage: ref(UsageSchema),
  }),
  eventSchema('egress.request', 'EventEgressRequest', 'One outbound request a tool, an http hook or a sandboxed process made (one per redirect hop; one per tunnel), as evidence; part of the audit trail', {
    turn_id: Type.Optional(Type.String()),
    tool_use_id: Type.Optional(Type.String({ description: 'The call that made the request (a tool\'s), or the call a hook ran for' })),
    parent_tool_use_id: Type.Optional(Type.String()),
    tool: Type.Optional(Type.String({ description: 'The tool that made the request, or the tool of the call a hook ran for' })),
    hook: Type.Optional(Type.String({ description: 'Set when an http hook made the request: the hook (e.g. `hooks.PreToolUse[0].hooks[0]`)' })),
    via: Type.Optional(
      Type.Literal('sandbox_proxy', {
        description:
          'Set when a sandboxed process made the request through the session\'s egress proxy (`sandbox_network`): one per tunnel, or one per request the proxy read (plain HTTP, and HTTPS in a session with secrets, whose TLS the proxy terminates)',
      }),
    ),
    method: Type.String(),
    url: Type.String({ description: 'The URL of this hop' }),
    address: Type.String({ description: 'The address connected to (the proxy resolves names itself when NORMA_EGRESS_PROXY is set); empty when refused before connecting' }),
    status: Type.Union([Type.Integer(), Type.Null()], { description: 'HTTP status; null when no answer came' }),
    bytes: Type.Integer({ minimum: 0, description: 'Response body bytes received' }),
    sha256: Type.Union([Type.String(), Type.Null()], { description: 'SHA-256 (hex) of the body bytes received' }),
    duration_ms: Type.Integer({ minimum: 0 }),
    error: Type.Optional(Type.String({ description: 'Why the request was refused or failed (e.g. the egress rule)' })),
    host: Type.Optional(Type.String({ description: 'Sandboxed processes: the host the connection or request names (its Host, CONNECT host and TLS name agree)' })),
    port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535 })),
    scheme: Type.Optional(StringEnum(['http', 'https', 'tcp'], { description: 'Sandboxed processes: what the connection carried' })),
    rules: Type.Optional(Type.Array(Type.String(), { description: 'The Network rule(s) that allowed it (absent: the mode, or refused)' })),
    secrets: Type.Optional(Type.Array(Type.String(), { description: 'Secrets the proxy put into the request, by name (never their values)' })),
    request_bytes: Type.Optional(Type.Integer({ minimum: 0, description: 'Request body bytes sent (a tunnel: bytes the process sent)' })),
    request_sha256: Type.Optional(Type.String({ description: 'SHA-256 (hex) of the request body as the process sent it (with placeholders, never secret values)' })),
  }),
  eventSchema('mcp.server.started', 'EventMcpServerStarted', 'An MCP server of the session started, initialized and listed its tools (at creation, after a restart of the service, or after it exited)', {
    server: Type.String(),
    restarts: Type.Integer({ minimum: 0, description: 'How many times it was started again after exiting' }),
    tools: Type.Array(Type.String(), { description: 'Full names of its tools now' }),
    duration_ms: Type.Integer({ minimum: 0, description: 'From starting the process to the tool list' }),
  }),
  eventSchema('mcp.server.exited', 'EventMcpServerExited', 'An MCP server of the session exited or was stopped; `next` says what follows', {
    server: Type.String(),
    code: Type.Union([Type.Integer(), Type.Null()]),
    signal: Type.Union([Type.String(), Type.Null()]),
    reason: Type.String({ description: 'Why, in words (crashed, a protocol error, closed with the session, …)' }),
    next: StringEnum(['restart', 'none'], { description: '`restart`: it is started again after `restart_in_ms`' }),
    restart_in_ms: Type.Optional(Type.Integer({ minimum: 0 })),
  }),
  eventSchema('tools.changed', 'EventToolsChanged', 'The session\'s tools changed (an MCP server\'s list changed, or it started again with other tools)', {
    server: Type.String(),
    added: Type.Array(Type.String()),
    removed: Type.Array(Type.String()),
    changed: Type.Array(Type.String(), { description: 'Tools whose description, schema or hints changed' }),
  }),
  eventSchema('mcp.request', 'EventMcpRequest', 'One request to an MCP server and its answer, as evidence (like egress.request); part of the audit trail', {
    turn_id: Type.Optional(Type.String()),
    tool_use_id: Type.Optional(Type.String()),
    server: Type.String(),
    method: Type.String({ description: 'The JSON-RPC method (`tools/call`, `resources/read`, …)' }),
    tool: Type.Optional(Type.String({ description: 'With tools/call: the server\'s name of the tool called' })),
    request_bytes: Type.Integer({ minimum: 0 }),
    response_bytes: Type.Integer({ minimum: 0 }),
    request_sha256: Type.String({ description: 'SHA-256 (hex) of the request message as sent' }),
    response_sha256: Type.Union([Type.String(), Type.Null()], { description: 'SHA-256 (hex) of the response message; null when none came' }),
    outcome: StringEnum(['ok', 'error', 'no_response'], {
      description: '`error`: a JSON-RPC error answer; `no_response`: it timed out, was cancelled or the server went away',
    }),
    error: Type.Optional(Type.String()),
    duration_ms: Type.Integer({ minimum: 0 }),
  }),
  eventSchema('mcp.client.connected', 'EventMcpClientConnected', 'An MCP client opened (or, on another server or after a restart, took up again) an MCP session on this session at /mcp; part of the audit trail', {
    mcp_session: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'SHA-256 (hex) of the MCP session id (the id itself is not stored)' }),
    client: Type.Object({ name: Type.String({ maxLength: 200 }), version: Type.String({ maxLength: 200 }) }, { description: 'What the client said it is (initialize\'s clientInfo), shortened' }),
    protocol_version: Type.String({ maxLength: 40 }),
    elicitation: Type.Boolean({ description: 'The client declared form elicitation: permission requests and questions of its calls are asked through it too' }),
    attached: Type.Boolean({ description: 'True: the client attached to an existing session (`?session=`); false: the session was made for it' }),
    key: Type.Union([Type.String(), Type.Null()], { description: 'The name of the key that connected (null: the loopback caller of a server without keys)' }),
  }),
  eventSchema('mcp.client.closed', 'EventMcpClientClosed', 'An MCP session at /mcp ended (the client sent DELETE); part of the audit trail', {
    mcp_session: Type.String({ pattern: '^[0-9a-f]{64}$' }),
    session_closed: Type.Boolean({ description: 'Whether the Norma session is closed with it (a session made for the client, with NORMA_MCP_SESSION_END=close)' }),
  }),
  eventSchema('workspace.rewound', 'EventWorkspaceRewound', 'The workspace was rewound to a checkpoint (POST …/rewind, or a rewind a crash interrupted, finished at start-up); part of the audit trail', {
    to: Type.String({ description: 'The checkpoint rewound to' }),
    checkpoint_id: Type.String({ description: 'The checkpoint made just before (rewind to it to undo this one)' }),
    after_checkpoint_id: Type.Union([Type.String(), Type.Null()], { description: 'The checkpoint of the workspace as the rewind left it' }),
    restored: Type.Array(Type.String()),
    deleted: Type.Array(Type.String()),
    forced: Type.Array(Type.String(), { description: 'Conflicting paths rewound because the request said `force`' }),
    paths: Type.Union([Type.Array(Type.String()), Type.Null()], { description: 'The globs the rewind was limited to; null: the whole workspace' }),
    dropped_turns: Type.Array(Type.String()),
    by: Type.Union([Type.String(), Type.Null()], { description: 'The key id that asked (null: the loopback caller of a server without keys, or the server finishing an interrupted rewind)' }),
    recovered: Type.Boolean({ description: 'True: a rewind a crash interrupted, finished at start-up' }),
  }),
  eventSchema(
    'stream.end',
    'EventStreamEnd',
    'Sent by the server just before it ends this SSE stream (shutdown, the client read too slowly, or the key it was ' +
      'opened with was removed or expired); not stored. Reconnect with Last-Event-ID (or ?after=) set to `resume_after` ' +
      'to continue without a gap (after `revoked`: with a valid key).',
    {
      reason: StringEnum(['shutdown', 'overflow', 'revoked']),
      resume_after: Type.Integer({ minimum: 0, description: 'The last event id this stream delivered' }),
    },
  ),
] as const;

export const EventSchema = OneOf(
  EVENT_SCHEMAS.map((s) => ref(s)),
  { $id: 'Event', discriminator: 'type', description: 'Any SSE event; `type` tells which' },
);

export const HookRunListSchema = Type.Object(
  {
    items: Type.Array(OneOf([ref(EVENT_SCHEMAS.find((s) => s.$id === 'EventHookCompleted')!), ref(EVENT_SCHEMAS.find((s) => s.$id === 'EventHookFailed')!)], { discriminator: 'type' })),
    next_after: Type.Union([Type.Integer(), Type.Null()], { description: 'Pass as `after` for the next page; null at the end' }),
  },
  { $id: 'HookRunList', description: 'Every hook run of a session (its hook.completed and hook.failed events)' },
);

export const EgressListSchema = Type.Object(
  {
    items: Type.Array(ref(EVENT_SCHEMAS.find((s) => s.$id === 'EventEgressRequest')!)),
    next_after: Type.Union([Type.Integer(), Type.Null()], { description: 'Pass as `after` for the next page; null at the end' }),
  },
  { $id: 'EgressList', description: 'Every outbound request tools of a session made (its egress.request events)' },
);

export const McpRequestListSchema = Type.Object(
  {
    items: Type.Array(ref(EVENT_SCHEMAS.find((s) => s.$id === 'EventMcpRequest')!)),
    next_after: Type.Union([Type.Integer(), Type.Null()], { description: 'Pass as `after` for the next page; null at the end' }),
  },
  { $id: 'McpRequestList', description: 'Every request the session made to its MCP servers (its mcp.request events)' },
);

export const SessionExportSchema = Type.Object(
  {
    format: Type.Literal('norma.session-export'),
    version: Type.Literal(1),
    exported_at: Type.String({ format: 'date-time' }),
    session: ref(SessionSchema),
    turns: Type.Array(ref(TurnSchema), { description: 'Oldest first, each with its tool_uses and paired results' }),
    permissions: Type.Array(ref(PermissionRequestSchema)),
    questions: Type.Array(ref(QuestionSchema)),
    client_tool_requests: Type.Array(ref(ClientToolRequestSchema), { description: 'Calls of the session\'s client tools, oldest first' }),
    todos: ref(TodoListSchema),
    decisions: Type.Array(ref(DecisionSchema)),
    outputs: Type.Array(ref(OutputSchema), { description: 'Spill-file records (download the files with the outputs route)' }),
    events: Type.Array(ref(EventSchema), { description: 'Every durable event up to the signed head, in seq order' }),
    chain: ref(ChainExportSchema, 'The signed head the export ends at, and the key that signed it'),
  },
  { $id: 'SessionExport', description: 'Everything the server knows about one session, for audit' },
);

type EventUnion = Static<(typeof EVENT_SCHEMAS)[number]>;
export type NormaEvent = EventUnion;
export type EventType = NormaEvent['type'];
/** What an emitter supplies: the log adds `session_id`, `seq`, `time` and `hash`. */
export type EventInput = EventUnion extends infer E
  ? E extends { type: string }
    ? Omit<E, 'session_id' | 'seq' | 'time' | 'hash'>
    : never
  : never;

/** Events delivered live but not stored or replayed (API.md allows this for progress). */
export const LIVE_ONLY_EVENTS: ReadonlySet<string> = new Set(['tool.progress', 'message.delta', 'thinking.delta', 'stream.end']);
